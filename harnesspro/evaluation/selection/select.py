"""Selecting the epoch's operating points from every candidate scored so far."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harnesspro.core import pareto
from harnesspro.core.atomic import write_text_atomic
from harnesspro.core.cost_axis import axis_of, value_on
from harnesspro.core.records import Score
from harnesspro.improvers.planner.measured import shrunk_points
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.run.validation_scores import pooled_scores

HV_REF_KEY = "hypervolume_ref_cost"
"""Ledger meta key of the fixed reference point (pass rate 0, this cost or token count)."""

SINGLE_OBJECTIVE = frozenset({"rho"})
"""Strategies that optimise pass rate alone: every operating point is the best pass rate."""
SHRUNK = frozenset({"harnesspro"})
"""Strategies whose operating points are chosen on the surrogate's posterior means."""
SHRUNK_REPORT = "shrunk.csv"


class SeedUnscored(RuntimeError):
    """The seed has no scored coreset rollout, so there is no PR(H0) to filter against."""


@dataclass(frozen=True)
class Choice:
    """The filter's survivors and each mode's operating point, as candidate ids."""

    survivors: tuple[str, ...]
    picks: dict[str, str]  # mode -> candidate id
    j: dict[str, float]  # mode -> J_m of its pick, normalised over the survivors


def choose(
    points: Mapping[str, tuple[float, float]],
    seed_id: str,
    modes: Mapping[str, tuple[float, float]],
    max_distinct: int,
) -> Choice:
    """Filter (below the seed's pass rate, Pareto-dominated), then minimise J_m per mode.

    `points` maps candidate id -> (pass rate, cost per task) and must hold the seed: the seed
    is always compared. It is never below its own pass rate, so the survivors are never
    empty. When every other candidate is below the seed (or dominated by it) the seed is the
    only survivor and every mode picks it: the next epoch starts again from H0 rather than
    from a candidate that lost to it. Survivors with identical points all survive (neither
    dominates the other); with equal costs only the best pass rate survives.
    """
    if seed_id not in points:
        raise SeedUnscored(f"the seed {seed_id} has no scored rollout to compare against")
    ids = sorted(points)
    pr = [points[i][0] for i in ids]
    cost = [points[i][1] for i in ids]
    kept = [ids[i] for i in pareto.survivors(pr, cost, points[seed_id][0])]
    kept_pr = [points[i][0] for i in kept]
    kept_cost = [points[i][1] for i in kept]
    local = pareto.select_modes(kept_pr, kept_cost, modes, max_distinct)
    j = {m: float(pareto.objective_j(kept_pr, kept_cost, *modes[m])[i]) for m, i in local.items()}
    return Choice(tuple(kept), {m: kept[i] for m, i in local.items()}, j)


def best_pass(points: Mapping[str, tuple[float, float]], modes: list[str]) -> Choice:
    """Single-objective selection: every mode gets the best pass rate (ties: the earliest
    candidate, the incumbent a hill climber keeps); cost plays no part."""
    best = min(points, key=lambda cid: (-points[cid][0], cid))
    return Choice((best,), dict.fromkeys(modes, best), dict.fromkeys(modes, 0.0))


@dataclass(frozen=True)
class Selected:
    epoch: int
    picks: dict[str, str]  # mode -> candidate id
    survivors: set[str]
    hypervolume: float

    @property
    def parents(self) -> list[str]:
        """The distinct selected candidates: they seed the next epoch."""
        return sorted(set(self.picks.values()))


def cost_axis(score: Score, scores: Mapping[str, Score]) -> float:
    """Dollars per task; tokens per task for every candidate when any cost is unknown (an
    unpriced model under `allow_unpriced`); model calls per task when token counts are unknown
    too (`harnesspro.core.cost_axis`): never a made-up price."""
    return value_on(score, axis_of(scores))


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


def select(ctx: RunContext, epoch: int) -> Selected:
    """Choose the epoch's operating points over the coreset scores (pooled with validation
    scores where a candidate has them, under `selection.validated`) and record them; a
    later choice in the same epoch replaces the recorded one."""
    scores = ctx.scores()
    if ctx.config.selection.validated:
        scores = pooled_scores(ctx, scores)
    if SEED_ID not in scores:
        raise SeedUnscored(unscored_reason(ctx))
    points = {cid: (s.pass_rate, cost_axis(s, scores)) for cid, s in scores.items()}
    modes = {m: (w.alpha, w.beta) for m, w in ctx.config.selection.modes.items()}
    choice = choose(shrunk(ctx, points), SEED_ID, modes, ctx.config.evolution.max_survivors)
    if ctx.config.evolution.strategy in SINGLE_OBJECTIVE:
        choice = best_pass(points, list(modes))
    rows = [
        (mode, cid, points[cid][0], scores[cid].cost_per_task, choice.j[mode])
        for mode, cid in choice.picks.items()
    ]
    ctx.ledger.record_selection(epoch, rows)
    pr, cost = [p for p, _ in points.values()], [c for _, c in points.values()]
    hv = pareto.hypervolume(pr, cost, ref_cost=reference_cost(ctx, cost))
    return Selected(epoch, choice.picks, set(choice.survivors), hv)


def shrunk(
    ctx: RunContext, points: dict[str, tuple[float, float]]
) -> dict[str, tuple[float, float]]:
    """The points to choose on: raw means, or (strategies in SHRUNK, catalog improver, dollar
    axis) the surrogate's posterior means of every catalog candidate, written beside the raw
    ones to reports/shrunk.csv."""
    evolution = ctx.config.evolution
    if evolution.strategy not in SHRUNK or evolution.improver != "catalog":
        return points
    if ctx.config.selection.validated or axis_of(ctx.scores()) != "dollars":
        return points  # the surrogate models coreset dollars only
    means = shrunk_points(ctx.scoring_rollouts(), ctx.splits.coreset, ctx.candidates(),
                          ctx.scores())  # fmt: skip
    out = {cid: means.get(cid, point) for cid, point in points.items()}
    rows = ["candidate_id,raw_pass_rate,raw_cost_per_task,shrunk_pass_rate,shrunk_cost_per_task"]
    rows += [f"{cid},{p:.6g},{c:.6g},{out[cid][0]:.6g},{out[cid][1]:.6g}"
             for cid, (p, c) in sorted(points.items())]  # fmt: skip
    write_text_atomic(ctx.run.reports() / SHRUNK_REPORT, "\n".join(rows) + "\n")
    return out


def reference_cost(ctx: RunContext, cost: list[float]) -> float:
    """The hypervolume reference point's cost: nothing passes, at twice the dearest cost seen
    at epoch 0 (the seed's). Fixed then and kept in the ledger, so every epoch's hypervolume
    is measured against the same point and the figures compare."""
    stored = ctx.ledger.meta(HV_REF_KEY)
    if stored is None:
        stored = repr(2 * max(cost))
        ctx.ledger.set_meta(HV_REF_KEY, stored)
    return float(stored)


def recorded(ctx: RunContext, epoch: int) -> Selected:
    """A finished epoch's selection read back from the ledger (for resuming)."""
    sel = ctx.ledger.selections()
    rows = sel[sel["epoch"] == epoch]
    epochs = ctx.ledger.finished_epochs()
    hv = float(epochs[epochs["epoch"] == epoch]["hypervolume"].iloc[0])
    return Selected(epoch, dict(zip(rows["mode"], rows["candidate_id"], strict=True)), set(), hv)
