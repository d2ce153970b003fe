"""The benchmark's arithmetic, pure: hypervolumes normalised by a reference front, the seed
comparisons, bootstrap intervals over profiles and paired wins.

Points are (pass rate, cost per task) on the test split; pass rate is maximised, cost
minimised. Within one profile every strategy is measured against the same reference point,
(pass 0, twice the dearest cost any point of that profile reached), and divided by the
hypervolume of the reference front: the non-dominated union of every strategy's points (and
of any exhaustively evaluated harnesses), so a strategy whose points make up the whole union
scores 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harnesspro.core import pareto

Point = tuple[float, float]  # (pass rate, cost per task)


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    n: int


def area(points: Sequence[Point], ref_cost: float) -> float:
    """The hypervolume of (pass rate, cost) points at (pass 0, `ref_cost`)."""
    return pareto.hypervolume([p for p, _ in points], [c for _, c in points], ref_cost)


def reference_front(point_sets: Sequence[Sequence[Point]]) -> list[Point]:
    """The non-dominated union of every set's points."""
    union = sorted({p for points in point_sets for p in points})
    if not union:
        return []
    keep = pareto.non_dominated([p for p, _ in union], [c for _, c in union])
    return [union[i] for i in keep]


def normalised_hypervolumes(
    by_strategy: Mapping[str, Sequence[Point]], extra: Sequence[Point] = ()
) -> dict[str, float]:
    """Each strategy's hypervolume over the reference front's, at a shared reference point."""
    sets = [*by_strategy.values(), extra]
    costs = [c for points in sets for _, c in points]
    ref_cost = 2 * max(costs)
    front = reference_front(sets)
    whole = area(front, ref_cost)
    out = {}
    for name, points in by_strategy.items():
        out[name] = area(points, ref_cost) / whole if whole > 0 else math.nan
    return out


def heavy_gain(seed: Point, heavy: Point) -> float:
    """Heavy's pass rate minus the seed's (points of pass rate)."""
    return heavy[0] - seed[0]


def lite_cost_cut(seed: Point, lite: Point) -> float | None:
    """1 - lite's cost / the seed's; None when the seed's cost is 0 or unknown."""
    if not seed[1] or not math.isfinite(seed[1]) or not math.isfinite(lite[1]):
        return None
    return 1 - lite[1] / seed[1]


def bootstrap_interval(
    values: Sequence[float], resamples: int = 2000, level: float = 0.9, seed: int = 0
) -> Interval:
    """Mean over profiles and its percentile bootstrap interval (profiles resampled)."""
    x = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if x.size == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(float(x.mean()), float(low), float(high), int(x.size))


@dataclass(frozen=True)
class Wins:
    wins: int
    ties: int
    losses: int

    @property
    def share(self) -> float:
        """Share of profiles won outright (ties do not count as wins)."""
        total = self.wins + self.ties + self.losses
        return self.wins / total if total else math.nan


TIE = 1e-9


def paired_wins(mine: Mapping[int, float], theirs: Mapping[int, float]) -> Wins:
    """Profile by profile (those both have), how often `mine` is higher."""
    common = sorted(set(mine) & set(theirs))
    diffs = [mine[p] - theirs[p] for p in common]
    return Wins(
        sum(d > TIE for d in diffs), sum(abs(d) <= TIE for d in diffs), sum(d < -TIE for d in diffs)
    )
