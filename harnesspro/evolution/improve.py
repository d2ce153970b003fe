"""One improvement step: analyse the survivors' train traces, plan under three directives,
edit each plan into a candidate, and later check the plans' predictions.

`evolution.improver` picks the roles: `catalog` (offline) or `llm` (model calls through the
search account, metered apart; each role falls back to the catalog with a recorded reason).
Either way every input comes from `disclosure.improver_inputs`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from harnesspro.core import journal
from harnesspro.core.ledger import rollout_frame
from harnesspro.core.ledger_rows import plan_of
from harnesspro.core.metrics import judged
from harnesspro.core.records import Candidate, Plan, Trace
from harnesspro.evolution.taskfacts import TaskFacts, leak, task_facts
from harnesspro.execution.gateway.upstream import Upstream
from harnesspro.improvers.account import SearchAccount, improver_price, make_improver_upstream
from harnesspro.improvers.analyzer.rules import prevalence
from harnesspro.improvers.editor.apply import Edit
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.improvers.library import harmful
from harnesspro.improvers.planner.catalog import check_prediction
from harnesspro.improvers.planner.exploration import Exploration
from harnesspro.improvers.planner.memory import Pairs, check_flips, measure, paired_difference
from harnesspro.improvers.roles.dispatch import CatalogImprover, Improver, LLMImprover
from harnesspro.reports.search_costs import describe_search_costs, write_search_costs
from harnesspro.run import disclosure
from harnesspro.run.context import RunContext
from harnesspro.run.disclosure import improver_inputs


def train_traces(ctx: RunContext, candidate_ids: set[str]) -> list[Trace]:
    """Train-split traces only: improvers never see validation or test rollouts."""
    return disclosure.train_traces(ctx, candidate_ids)


def search_folder(ctx: RunContext, epoch: int) -> Path:
    """search/epoch-N/: the search gateway's log and the improver transcripts."""
    return ctx.run.root / "search" / f"epoch-{epoch}"


@contextlib.contextmanager
def search_account(
    ctx: RunContext, epoch: int, upstream: Upstream | None = None
) -> Iterator[SearchAccount]:
    """The epoch's search-cost account; `upstream` overrides the configured one (tests)."""
    improver = ctx.config.evolution.improver_model
    account = SearchAccount(
        upstream or make_improver_upstream(improver, ctx.model_url),
        improver,
        improver_price(ctx.config),
        ctx.ledger,
        epoch,
        search_folder(ctx, epoch),
        ctx.config.budget.max_improver_dollars,
        ctx.config.gateway.retry_policy(),
    )
    with account:
        yield account


def improve(
    ctx: RunContext,
    epoch: int,
    parent_ids: list[str],
    upstream: Upstream | None = None,
    wrap: Callable[[Improver], Improver] | None = None,
) -> list[Candidate]:
    """Diagnose, plan and edit; returns this epoch's candidates to evaluate.

    `upstream` replaces the llm improver's configured model (tests pass a replay upstream);
    `wrap` wraps the roles (a strategy that chooses among the planner's plans: the llm roles
    of `harnesspro-catalog`, either mode's of the loop).
    """
    llm = ctx.config.evolution.improver == "llm"
    inputs = improver_inputs(ctx, epoch, parent_ids, diffs=llm)
    try:
        if not llm:
            evolution = ctx.config.evolution
            explore = Exploration(f"{ctx.config.seed}:{epoch}") if evolution.exploration else None
            catalog = CatalogImprover(
                ctx.config.sandbox.backend, evolution.plan_bundle, explore, evolution.plans_disjoint
            )
            return run_roles(ctx, inputs, wrap(catalog) if wrap else catalog)
        sandbox = ctx.config.sandbox
        with search_account(ctx, epoch, upstream) as account:
            bundle = ctx.config.evolution.plan_bundle
            roles: Improver = LLMImprover(account, sandbox.backend, sandbox.memory_mb, bundle)
            children = run_roles(ctx, inputs, wrap(roles) if wrap else roles)
        ctx.console.print(f"  {describe_search_costs(ctx.ledger)}", markup=False)
        return children
    finally:
        write_search_costs(ctx.ledger, ctx.run.reports())


def _fallbacks(ctx: RunContext, role: str, fallbacks: dict[str, str]) -> None:
    for parent, reason in sorted(fallbacks.items()):
        ctx.console.print(f"  {role} fell back to the catalog for {parent}: {reason}", markup=False)


def run_roles(ctx: RunContext, inputs: ImproverInputs, roles: Improver) -> list[Candidate]:
    """Analyzer, planner and editor over the disclosed inputs; records diagnoses and plans.

    Journaled step by step (harnesspro/core/journal.py): a resumed epoch reuses its plans and
    finished edits instead of planning or editing again."""
    epoch = inputs.epoch
    ctx.run.mark_phase("improve")
    plans = journal.journaled_plans(ctx.ledger, epoch)
    if plans is None:
        plans = make_plans(ctx, inputs, roles)
        ctx.ledger.journal(epoch, journal.PLANS, journal.plans_text(plans))
    else:
        ctx.console.print(f"  resuming the improve step: {len(plans)} journaled plans reused")
    children: dict[str, Candidate] = {}
    ctx.run.mark_phase("git")  # worktrees, edits, smoke rollouts, commits
    facts = FactsOnce(ctx)
    for index, plan in enumerate(plans):
        child, note = edit_plan(ctx, inputs, roles, index, plan, facts)
        if child and child.epoch == epoch:
            children[child.id] = child
        outcome = " ".join(filter(None, [child.id if child else "", note]))
        ctx.console.print(
            f"  plan {plan.parent_id} ({plan.directive}) {plan.mechanism}: predicted pass "
            f"{plan.predicted_pass:+.3f}, cost {plan.predicted_cost:+.1%} -> {outcome}",
            markup=False,
        )
    return list(children.values())


def make_plans(ctx: RunContext, inputs: ImproverInputs, roles: Improver) -> list[Plan]:
    """Diagnose the parents (recorded, printed) and plan their changes."""
    epoch, parent_ids, scores = inputs.epoch, list(inputs.parents), inputs.scores
    diagnoses, fell_back = roles.diagnose(inputs)
    _fallbacks(ctx, "analyzer", fell_back)
    ctx.ledger.record_diagnoses(epoch, diagnoses)
    prevalences = {p: prevalence(diagnoses, p, scores[p].n_rollouts) for p in parent_ids}
    for parent, seen in prevalences.items():
        shares = ", ".join(f"{kind} {share:.0%}" for kind, share in sorted(seen.items()))
        ctx.console.print(f"  diagnoses of {parent} (share of its rollouts): {shares or 'none'}")
    for name, evidence in sorted(harmful(inputs.library).items()):
        ctx.console.print(f"  library: avoiding {name}: {evidence}", markup=False)
    plans, fell_back = roles.plan(inputs, diagnoses, prevalences)
    _fallbacks(ctx, "planner", fell_back)
    return plans


def edit_plan(
    ctx: RunContext,
    inputs: ImproverInputs,
    roles: Improver,
    index: int,
    plan: Plan,
    facts: FactsOnce | None = None,
) -> tuple[Candidate | None, str]:
    """The `index`-th plan's candidate and note: journaled by a crashed run, else edited now,
    checked for task facts (evolution/taskfacts.py) and recorded (candidate, plan row and
    journal in one transaction)."""
    epoch = inputs.epoch
    done = journal.journaled_edit(ctx.ledger, epoch, index)
    if done is not None:
        return (ctx.candidates()[done.child] if done.child else None), done.note
    existing = list(ctx.candidates().values())
    new_id = f"c{len(existing):03d}"  # ids follow creation order
    parent = inputs.candidates[plan.parent_id]
    edit = roles.edit(plan, parent, ctx.repo, existing, new_id, epoch)
    if edit.new and edit.candidate is not None:
        files = ctx.repo.files(parent.commit), ctx.repo.files(edit.candidate.commit)
        found = leak((facts or FactsOnce(ctx)).get(), *files)
        if found:
            ctx.repo.discard(new_id)
            edit = Edit(plan, None, new=False, note=found)
    made = edit.candidate if edit.new else None
    child = edit.candidate.id if edit.candidate else None
    ctx.ledger.record_edit(epoch, journal.edit_step(index), plan, made, child, edit.note)
    return edit.candidate, edit.note


class FactsOnce:
    """The run's task facts, read when the first new candidate needs them (once per step)."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.facts: TaskFacts | None = None

    def get(self) -> TaskFacts:
        if self.facts is None:
            self.facts = task_facts(self.ctx)
        return self.facts


def pairs_of(ctx: RunContext, parent: str, child: str) -> Pairs:
    """The two candidates' scored coreset rollouts matched by (task, attempt)."""
    # `tokens` is NaN where the provider reported no usage
    frame = rollout_frame(judged(ctx.ledger.rollout_rows(), ctx.splits.coreset))
    keys = ["task_id", "attempt"]
    mine = frame[frame["candidate_id"] == parent]
    theirs = frame[frame["candidate_id"] == child]
    both = mine.merge(theirs, on=keys, how="inner", suffixes=("_p", "_c"))
    # dollars, else tokens, else model calls (harnesspro.core.cost_axis): never an unknown as 0
    unit, column = next(
        (unit, column)
        for unit, column in (("dollars", "cost"), ("tokens", "tokens"), ("calls", "n_calls"))
        if both[f"{column}_p"].notna().all() and both[f"{column}_c"].notna().all()
    )
    return Pairs(
        both["task_id"].to_numpy(),
        both["pass_p"].to_numpy(float),
        both["pass_c"].to_numpy(float),
        both[f"{column}_p"].to_numpy(float),
        both[f"{column}_c"].to_numpy(float),
        unit,
    )


def _confounders(ctx: RunContext, plan: Plan, child: str, rows: list[dict[Any, Any]]) -> list[str]:
    """Why the child's change is not the plan's alone (empty when it is)."""
    found = []
    others = {str(r["mechanism"]) for r in rows if r["child_id"] == child} - {plan.mechanism}
    if others:
        found.append(f"the same tree was made by {', '.join(sorted(others))}")
    if plan.kind == "free" and plan.files:
        candidates = ctx.candidates()
        parent, made = candidates[plan.parent_id], candidates[child]
        stray = set(ctx.repo.changed_files(parent.commit, made.commit)) - set(plan.files)
        if stray:
            found.append(f"the edit also changed {', '.join(sorted(stray))}")
    return found


def _pct(value: float | None) -> str:
    return "unknown" if value is None else f"{value:+.1%}"


def record_effects(ctx: RunContext, epoch: int, only: set[str] | None = None) -> None:
    """Measure each of the epoch's plans on its child (only those children, when given),
    record the verdict, and print it."""
    scores = ctx.scores()
    plans = ctx.ledger.plans()
    every = plans.to_dict("records")
    for row in plans[plans["epoch"] == epoch].to_dict("records"):
        child, parent = row["child_id"], str(row["parent_id"])
        if child is None or child not in scores or parent not in scores:
            continue
        if only is not None and child not in only:
            continue
        plan = plan_of(row)
        pairs = pairs_of(ctx, parent, str(child))
        if not len(pairs.tasks):
            continue
        ev = ctx.config.evaluation
        diff = paired_difference(pairs, ev.bootstrap_resamples, ev.confidence, ctx.config.seed)
        confounders = _confounders(ctx, plan, str(child), every)
        effect = measure(plan, diff, pairs.unit, confounders)
        flips = check_flips(plan.expected_flips, pairs)
        if flips:
            effect = dataclasses.replace(effect, why=f"{effect.why}; {flips}")
        ctx.ledger.record_effect(epoch, plan, effect)
        held = check_prediction(plan, scores[parent], scores[child])[2]
        # An unpriced model's cost change is unknown, and so is whether the prediction held.
        unknown = math.isnan(scores[child].cost_per_task) or math.isnan(
            scores[parent].cost_per_task
        )
        prediction = "unknown (cost unknown)" if unknown else "held" if held else "missed"
        ctx.repo.annotate(
            ctx.candidates()[str(child)].commit,
            f"measured ({plan.directive}: {plan.mechanism}): {effect.why} -> {effect.verdict}; "
            f"prediction {prediction}",
        )
        ctx.console.print(
            f"  check {child} ({plan.mechanism}): pass {effect.d_pass:+.3f} "
            f"(predicted {plan.predicted_pass:+.3f}), cost {_pct(effect.d_cost)} "
            f"(predicted {plan.predicted_cost:+.1%}) -> {effect.verdict} ({effect.why}); "
            f"prediction {prediction}",
            markup=False,
        )
