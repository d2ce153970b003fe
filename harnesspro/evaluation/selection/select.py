"""Selecting the epoch's operating points from every candidate scored so far: a function of
the scores (`SelectionInput`) to the choice (`Selection`); the epoch reads and records them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harnesspro.core import pareto
from harnesspro.core.cost_axis import axis_of, value_on
from harnesspro.core.records import Score
from harnesspro.run.context import SEED_ID


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


@dataclass(frozen=True)
class SelectionInput:
    """What an epoch's selection reads, gathered from the ledger by the epoch's select step
    (`harnesspro/evolution/select_step.py`)."""

    epoch: int
    scores: Mapping[str, Score]  # coreset scores (pooled with validation when validated)
    modes: Mapping[str, tuple[float, float]]  # mode -> (alpha, beta) of J_m
    max_survivors: int
    shrunk: Mapping[str, tuple[float, float]] | None = None  # posterior means to choose on
    single_objective: bool = False  # every mode gets the best pass rate (rho)
    ref_cost: float | None = None  # the run's fixed reference cost; None: fix it now


@dataclass(frozen=True)
class Selection:
    """The choice and what the ledger records of it."""

    selected: Selected
    rows: list[tuple[str, str, float, float, float]]  # mode, candidate, pass, cost, J_m
    ref_cost: float  # the hypervolume reference cost (2 x the dearest cost when first fixed)


def select(inputs: SelectionInput) -> Selection:
    """Choose the epoch's operating points: filter and minimise J_m per mode on the shrunk
    points when given (else the measured ones), or the best pass rate for single-objective
    strategies; the hypervolume of every measured point against the fixed reference."""
    scores = inputs.scores
    if SEED_ID not in scores:
        raise SeedUnscored(f"the seed {SEED_ID} has no scored coreset rollout")
    points = {cid: (s.pass_rate, cost_axis(s, scores)) for cid, s in scores.items()}
    if inputs.single_objective:
        choice = best_pass(points, list(inputs.modes))
    else:
        on = {cid: (inputs.shrunk or {}).get(cid, point) for cid, point in points.items()}
        choice = choose(on, SEED_ID, inputs.modes, inputs.max_survivors)
    rows = [
        (mode, cid, points[cid][0], scores[cid].cost_per_task, choice.j[mode])
        for mode, cid in choice.picks.items()
    ]
    pr, cost = [p for p, _ in points.values()], [c for _, c in points.values()]
    # nothing passes, at twice the dearest cost seen when first fixed (epoch 0: the seed's),
    # so every epoch's hypervolume is measured against the same point
    ref = inputs.ref_cost if inputs.ref_cost is not None else 2 * max(cost)
    hv = pareto.hypervolume(pr, cost, ref_cost=ref)
    return Selection(Selected(inputs.epoch, choice.picks, set(choice.survivors), hv), rows, ref)
