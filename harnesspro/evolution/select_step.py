"""The epoch's select step: its input gathered from the ledger (coreset scores, pooled with
validation scores under selection.validated; the surrogate's shrunk points; the run's fixed
reference cost), the choice made by evaluation/selection/select.py, and the choice recorded."""

from __future__ import annotations

from harnesspro.core.atomic import write_text_atomic
from harnesspro.core.cost_axis import axis_of
from harnesspro.core.records import Score
from harnesspro.evaluation.selection.select import (
    SeedUnscored,
    Selected,
    SelectionInput,
    select,
)
from harnesspro.evolution.strategies import make_strategy
from harnesspro.improvers.planner.features import Features, measured_changes
from harnesspro.improvers.planner.measured import shrunk_points
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.run.validation_scores import pooled_scores

HV_REF_KEY = "hypervolume_ref_cost"
"""Ledger meta key of the fixed reference point (pass rate 0, this cost or token count)."""
SHRUNK_REPORT = "shrunk.csv"


def select_epoch(ctx: RunContext, epoch: int) -> Selected:
    """Gather the selection's input from the ledger (coreset scores, pooled with validation
    scores under `selection.validated`; the shrunk points; the fixed reference cost), choose,
    and record the choice; a later choice in the same epoch replaces the recorded one."""
    scores = ctx.scores()
    if ctx.config.selection.validated:
        scores = pooled_scores(ctx, scores)
    if SEED_ID not in scores:
        raise SeedUnscored(unscored_reason(ctx))
    stored = ctx.ledger.meta(HV_REF_KEY)
    inputs = SelectionInput(
        epoch=epoch,
        scores=scores,
        modes={m: (w.alpha, w.beta) for m, w in ctx.config.selection.modes.items()},
        max_survivors=ctx.config.evolution.max_survivors,
        shrunk=shrunk_points_of(ctx, scores),
        single_objective=make_strategy(ctx.config.evolution.strategy).single_objective,
        ref_cost=None if stored is None else float(stored),
    )
    chosen = select(inputs)
    ctx.ledger.record_selection(epoch, chosen.rows)
    if stored is None:
        ctx.ledger.set_meta(HV_REF_KEY, repr(chosen.ref_cost))
    return chosen.selected


def shrunk_points_of(
    ctx: RunContext, scores: dict[str, Score]
) -> dict[str, tuple[float, float]] | None:
    """The surrogate's posterior means to choose on (a `shrunk` strategy, dollar axis, not
    validated; free-form changes are features too), written beside the raw ones to
    reports/shrunk.csv; None: choose on the measured points."""
    if not make_strategy(ctx.config.evolution.strategy).shrunk:
        return None
    if ctx.config.selection.validated or axis_of(scores) != "dollars":
        return None  # the surrogate models coreset dollars only
    candidates = ctx.candidates()
    features = Features(measured_changes(ctx.ledger.plan_rows(), candidates))
    means = shrunk_points(ctx.scoring_rollouts(), ctx.splits.coreset, candidates, scores, features)
    raw = {cid: (s.pass_rate, s.cost_per_task) for cid, s in scores.items()}
    out = {cid: means.get(cid, point) for cid, point in raw.items()}
    rows = ["candidate_id,raw_pass_rate,raw_cost_per_task,shrunk_pass_rate,shrunk_cost_per_task"]
    rows += [f"{cid},{p:.6g},{c:.6g},{out[cid][0]:.6g},{out[cid][1]:.6g}"
             for cid, (p, c) in sorted(raw.items())]  # fmt: skip
    write_text_atomic(ctx.run.reports() / SHRUNK_REPORT, "\n".join(rows) + "\n")
    return out


def unscored_reason(ctx: RunContext) -> str:
    """Why the seed has no coreset score: its rollouts did not run, or no coreset task has a
    test that can be scored (each must fail untouched and pass on some seed rollout)."""
    rollouts = ctx.ledger.rollouts()
    seed = rollouts[(rollouts["candidate_id"] == SEED_ID) & (rollouts["split"] == "coreset")]
    if not (seed["status"] == "ok").any():
        return (
            f"{ctx.run.root}: every coreset rollout of the seed failed to run; see the "
            "`reason` column of its rollouts in ledger.sqlite."
        )
    return (
        f"{ctx.run.root}: no coreset task has a synthesized test that can be scored (each must "
        "fail on the untouched workspace and pass on at least one seed rollout); "
        "reports/synth_tests.json gives each task's reason."
    )


def recorded(ctx: RunContext, epoch: int) -> Selected:
    """A finished epoch's selection read back from the ledger (for resuming)."""
    sel = ctx.ledger.selections()
    rows = sel[sel["epoch"] == epoch]
    epochs = ctx.ledger.finished_epochs()
    hv = float(epochs[epochs["epoch"] == epoch]["hypervolume"].iloc[0])
    return Selected(epoch, dict(zip(rows["mode"], rows["candidate_id"], strict=True)), set(), hv)
