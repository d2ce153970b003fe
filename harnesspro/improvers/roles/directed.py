"""The rule-based planner of the improvement loop: for one parent and each directive, the
changes aimed at the analyzer's findings and at the directive's region of the front.

Two sources, both offline: catalog mechanisms that apply (not on the parent's lineage, never
one the experience library found harmful), each predicted from the findings it answers
(planner/catalog.py:predict), and the changes the rule-based improver writes itself for a
finding (roles/ideas.py: prompt text, hooks), predicted the same way. Under a directive go
the changes whose prediction serves it (planner/catalog.py:agrees): the best few catalog
mechanisms, a bundle of the best two on distinct levers, and the written changes. Each plan
names the finding it answers. The loop's surrogate then chooses among them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harnesspro.core.records import DIRECTIVES, Candidate, Directive, Plan
from harnesspro.harness.mechanisms.catalog import BUNDLE_SEP, CATALOG, bundle_name
from harnesspro.improvers.analyzer.findings import Finding, answered, shares
from harnesspro.improvers.planner.catalog import (
    RELEVANCE_FLOOR,
    agrees,
    bundle_for,
    combined,
    lineage,
    predict,
    preference,
    serves,
)
from harnesspro.improvers.planner.evidence import NO_EVIDENCE, Beliefs, Prediction
from harnesspro.improvers.roles.ideas import IDEAS, Idea, wording

PER_DIRECTIVE = 3  # catalog mechanisms proposed per directive and parent
BUNDLE = 2  # and one bundle of the best two on distinct levers
CHECKPOINT_CALLS = 3  # the written checkpoint notice's threshold, in tool calls


@dataclass(frozen=True)
class Context:
    """What the planner reads for one parent."""

    parent: Candidate
    candidates: Mapping[str, Candidate]
    findings: Sequence[Finding]
    beliefs: Beliefs = NO_EVIDENCE
    avoid: Mapping[str, str] = field(default_factory=dict)
    genes: frozenset[str] | None = None
    """The genes the harness's knobs admit (None: every catalog mechanism)."""

    def carried(self) -> set[str]:
        """The changes already on the parent's lineage (catalog or written)."""
        names = (
            self.candidates[c].mechanism or "" for c in lineage(self.parent.id, self.candidates)
        )
        return {part for name in names for part in name.split(BUNDLE_SEP) if part}


def aim(finding: Finding | None) -> str:
    """The rationale's words on the finding a change answers."""
    return f"answers {finding.describe()}" if finding else "answers no finding: aimed at the region"


def catalog_plans(ctx: Context, directive: Directive) -> list[Plan]:
    """The directive's best catalog mechanisms for this parent, and a bundle of two."""
    banned = ctx.carried() | set(ctx.avoid)
    seen = shares(ctx.findings)
    options = [
        predict(m, seen, ctx.beliefs)
        for n, m in CATALOG.items()
        if n not in banned and (ctx.genes is None or n in ctx.genes)
    ]
    serving = [p for p in options if agrees(directive, p)]
    serving.sort(key=lambda p: (*preference(directive, p), p.mechanism.name))
    chosen = [[p] for p in serving[:PER_DIRECTIVE]]
    pair = bundle_for(directive, serving, BUNDLE, set(), set())
    if len(pair) > 1 and bundle_name([p.mechanism for p in pair]) not in ctx.avoid:
        chosen.append(pair)
    return [catalog_plan(ctx, directive, parts) for parts in chosen]


def catalog_plan(ctx: Context, directive: Directive, parts: list[Prediction]) -> Plan:
    """One catalog plan: its mechanisms, their combined prediction, the finding it answers."""
    effect = combined(parts)
    finding = answered([k for p in parts for k in p.mechanism.addresses], ctx.findings)
    summary = "; ".join(f"{p.mechanism.summary} ({p.mechanism.lever})" for p in parts)
    return Plan(
        parent_id=ctx.parent.id,
        directive=directive,
        mechanism=bundle_name([p.mechanism for p in parts]),
        rationale=f"{summary}; {aim(finding)}",
        predicted_pass=round(effect.d_pass, 4),
        predicted_cost=round(effect.d_cost, 4),
        levers=tuple(dict.fromkeys(p.mechanism.lever for p in parts)),
        scope="domain" if any(p.mechanism.scope == "domain" for p in parts) else "invariant",
        finding=finding.describe() if finding else "",
    )


def idea_prediction(idea: Idea, findings: Sequence[Finding]) -> tuple[float, float]:
    """The written change's effect, scaled by how widespread its findings are (as a catalog
    mechanism's is)."""
    seen = shares(findings)
    weight = RELEVANCE_FLOOR + (1 - RELEVANCE_FLOOR) * max(
        (seen.get(kind, 0.0) for kind in idea.addresses), default=0.0
    )
    return round(idea.predicted_pass * weight, 4), round(idea.predicted_cost * weight, 4)


def written_plans(ctx: Context, directive: Directive) -> list[Plan]:
    """The rule-based improver's own changes whose prediction serves the directive."""
    out = []
    for idea in IDEAS.values():
        if idea.name in ctx.carried() or idea.name in ctx.avoid:
            continue
        d_pass, d_cost = idea_prediction(idea, ctx.findings)
        if not serves(directive, d_pass, d_cost):
            continue
        finding = answered(idea.addresses, ctx.findings)
        text = wording(idea.name, ctx.parent.id + directive)
        out.append(
            Plan(
                parent_id=ctx.parent.id, directive=directive, mechanism=idea.name,
                rationale=f"written change for {', '.join(idea.addresses)}; {aim(finding)}",
                predicted_pass=d_pass, predicted_cost=d_cost, kind="free",
                levers=idea.levers, change=idea.describe(text, CHECKPOINT_CALLS),
                files=idea.files, finding=finding.describe() if finding else "",
            )
        )  # fmt: skip
    return out


def written_proposals(ctx: Context) -> list[Plan]:
    """Every directive's written changes for the parent (no catalog mechanism)."""
    return [plan for directive in DIRECTIVES for plan in written_plans(ctx, directive)]


def directed_plans(ctx: Context, written: bool = True) -> list[Plan]:
    """Every directive's proposals for the parent: catalog mechanisms, then (with `written`)
    the rule-based improver's own changes."""
    plans = []
    for directive in DIRECTIVES:
        plans += catalog_plans(ctx, directive)
        plans += written_plans(ctx, directive) if written else []
    return plans


def write_change(worktree: Path, plan: Plan, feedback: str) -> str:
    """The rule-based improver's editor: reads the files its change touches, writes them as
    the plan's words say (an editor's `EditFn`, editor/apply.py)."""
    idea = IDEAS.get(plan.mechanism)
    if idea is None:
        raise ValueError(f"the rule-based improver cannot write {plan.mechanism}")
    wanted = dict.fromkeys([*idea.files, "harness.yaml"])
    files = {rel: (worktree / rel).read_text() for rel in wanted if (worktree / rel).is_file()}
    try:
        written = idea.write(files, plan.change)
    except AssertionError as exc:  # a file it extends is not shaped as it expects
        raise ValueError(f"{plan.mechanism} does not fit this harness: {exc}") from exc
    for rel, text in written.items():
        (worktree / rel).parent.mkdir(parents=True, exist_ok=True)
        (worktree / rel).write_text(text)
    return f"written by the rule-based improver ({', '.join(sorted(written))})"
