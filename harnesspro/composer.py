"""The composer: after an epoch's children are scored, per parent, merge two siblings, pick
one, or keep the base (`evolution.composer: true`).

A sibling *gained* when, on the coreset (frozen tests, the same tasks and attempts as its
parent), it passed more often, or was cheaper without passing less, and its verdict is not
`confounded`. Per parent with evaluated children of this epoch:

- two or more gained, and two of them touch different levers: **merge** the best such pair
  (by pass gain minus relative cost change, summed) with a git three-way merge in the run's
  harness repository (their common ancestor is the base). The merged tree is validated like
  any candidate (manifest, code, smoke rollout, the merged-in change in effect) and then
  evaluated on the coreset; a conflicting or invalid merge falls back to **pick**.
- exactly one gained (or the gainers all share levers): **pick** the best gainer.
- none gained: **keep-base**, a legitimate outcome recorded as such, not a failure.

Outcomes go to the ledger's `compositions` table and reports/compositions.csv. Selection is
unchanged: a merged candidate competes on the Pareto front like any other.
"""

from __future__ import annotations

import math
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from harnesspro.context import RunContext
from harnesspro.editor.apply import EditFn, apply_plan
from harnesspro.records import Candidate, Plan, Score

Outcome = Literal["merge", "pick", "keep-base"]


@dataclass(frozen=True)
class Sibling:
    """One evaluated child of the parent, with what its plan touched and its verdict."""

    candidate: Candidate
    score: Score
    levers: tuple[str, ...]
    verdict: str | None


@dataclass(frozen=True)
class Decision:
    parent_id: str
    outcome: Outcome
    children: tuple[str, ...]
    """The merged pair, the picked child, or () for keep-base."""
    why: str


def relative_cost(base: Score, child: Score) -> float:
    """Relative change of cost per task (tokens stand in for an unknown cost)."""
    before, after = base.cost_per_task, child.cost_per_task
    if math.isnan(before) or math.isnan(after):
        before, after = base.tokens_per_task, child.tokens_per_task
    return after / before - 1 if before else 0.0


def gain(base: Score, child: Score) -> float:
    """Pass gain minus relative cost change."""
    return child.pass_rate - base.pass_rate - relative_cost(base, child)


def gained(base: Score, s: Sibling) -> bool:
    """Passed more often, or cheaper without passing less, and not confounded."""
    if s.verdict == "confounded":
        return False
    more = s.score.pass_rate > base.pass_rate
    cheaper = relative_cost(base, s.score) < 0 and s.score.pass_rate >= base.pass_rate
    return more or cheaper


def decide(parent_id: str, base: Score, siblings: Sequence[Sibling]) -> Decision:
    """Merge, pick or keep the base for one parent (see the module docstring)."""
    ranked = sorted(
        (s for s in siblings if gained(base, s)),
        key=lambda s: (-gain(base, s.score), s.candidate.id),
    )
    pairs = [
        (a, b)
        for i, a in enumerate(ranked)
        for b in ranked[i + 1 :]
        if not set(a.levers) & set(b.levers)
    ]
    if pairs:
        a, b = max(pairs, key=lambda p: gain(base, p[0].score) + gain(base, p[1].score))
        why = f"{a.candidate.id} and {b.candidate.id} both gained on different levers"
        return Decision(parent_id, "merge", (a.candidate.id, b.candidate.id), why)
    if ranked:
        best = ranked[0]
        why = f"{best.candidate.id} gained {gain(base, best.score):+.3f} (pass minus cost)"
        return Decision(parent_id, "pick", (best.candidate.id,), why)
    return Decision(parent_id, "keep-base", (), "no child passed more or cost less")


def _git(worktree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=worktree, capture_output=True, text=True)


def merge_edit(theirs: Candidate) -> EditFn:
    """An editor step that three-way merges `theirs` into the worktree (at the other sibling's
    commit); a conflict is an edit failure naming the files."""

    def edit(worktree: Path, plan: Plan, feedback: str) -> str:
        done = _git(worktree, "merge", "--no-commit", "--no-ff", theirs.commit)
        if done.returncode != 0:
            conflicted = _git(worktree, "diff", "--name-only", "--diff-filter=U").stdout.split()
            _git(worktree, "merge", "--abort")
            raise ValueError(f"merge conflict in {', '.join(conflicted) or 'the trees'}")
        _git(worktree, "merge", "--quit")  # keep the merged files; the editor commits them
        return f"three-way merge of {theirs.id} ({theirs.commit[:10]})"

    return edit


def merge_pair(ctx: RunContext, a: Sibling, b: Sibling, epoch: int) -> Candidate | str:
    """The merged candidate (a's tree plus b's change), or why there is none."""
    ours, theirs = a.candidate, b.candidate
    plans = ctx.ledger.plans()
    row = plans[(plans["epoch"] == epoch) & (plans["child_id"] == theirs.id)]
    from harnesspro.improve import plan_of  # improve is above this module

    plan = plan_of(row.iloc[0].to_dict()) if len(row) else None
    if plan is None:
        return f"no plan recorded for {theirs.id}"
    merged_plan = replace(
        plan,
        parent_id=ours.id,
        rationale=f"composer: merge {ours.id} + {theirs.id}; {plan.rationale}",
    )
    existing = list(ctx.candidates().values())
    new_id = f"c{len(existing):03d}"
    edit = apply_plan(merged_plan, ours, ctx.repo, existing, new_id, epoch, merge_edit(theirs))
    if edit.candidate is None:
        return edit.note
    if edit.new:
        ctx.ledger.add_candidate(edit.candidate)
    return edit.candidate


def siblings_of(ctx: RunContext, epoch: int) -> dict[str, list[Sibling]]:
    """This epoch's scored children, by parent."""
    from harnesspro.reports.levers import plan_levers

    scores = ctx.scores()
    found: dict[str, list[Sibling]] = {}
    candidates = ctx.candidates()
    for row in ctx.ledger.plans().to_dict("records"):
        child = row.get("child_id")
        if row["epoch"] != epoch or child is None or child not in scores:
            continue
        if any(s.candidate.id == child for s in found.get(str(row["parent_id"]), [])):
            continue  # two plans made the same tree
        sibling = Sibling(candidates[str(child)], scores[str(child)], tuple(plan_levers(row)),
                          row.get("verdict"))  # fmt: skip
        found.setdefault(str(row["parent_id"]), []).append(sibling)
    return found


def compose(ctx: RunContext, epoch: int) -> list[Candidate]:
    """Decide per parent, make the merges, record every outcome; returns the merged
    candidates (to evaluate)."""
    if not ctx.config.evolution.composer:
        return []
    scores = ctx.scores()
    merged: list[Candidate] = []
    for parent, siblings in sorted(siblings_of(ctx, epoch).items()):
        if parent not in scores:
            continue
        decision = decide(parent, scores[parent], siblings)
        made: str | None = None
        if decision.outcome == "merge":
            a, b = (next(s for s in siblings if s.candidate.id == c) for c in decision.children)
            result = merge_pair(ctx, a, b, epoch)
            if isinstance(result, Candidate):
                made = result.id
                merged.append(result)
            else:
                decision = Decision(
                    parent, "pick", decision.children[:1], f"merge failed ({result}); picked"
                )
        ctx.ledger.record_composition(
            epoch, parent, decision.outcome, decision.children, made, decision.why
        )
        ctx.console.print(
            f"  composer {parent}: {decision.outcome} {' + '.join(decision.children)}"
            f"{f' -> {made}' if made else ''} ({decision.why})",
            markup=False,
        )
    write_compositions(ctx)
    return merged


def write_compositions(ctx: RunContext) -> None:
    """reports/compositions.csv: every composer outcome of the run."""
    folder = ctx.run.reports()
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / ".compositions.csv.tmp"
    ctx.ledger.compositions().to_csv(temp, index=False)
    temp.replace(folder / "compositions.csv")


def outcomes(ctx: RunContext) -> Mapping[str, int]:
    """How many of each outcome the run recorded."""
    frame = ctx.ledger.compositions()
    return {str(k): int(v) for k, v in frame["outcome"].value_counts().items()}
