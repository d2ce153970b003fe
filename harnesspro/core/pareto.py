"""Pareto filtering and operating-point selection over pass rate (max) and cost (min)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
from pymoo.indicators.hv import HV
from pymoo.util.nds.non_dominated_sorting import NonDominatedSorting

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]

# Pass rates are ratios of small integers, so equal rates can differ by rounding.
SEED_TOLERANCE = 1e-12


def _objectives(pr: npt.ArrayLike, cost: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Return pr and cost as equal-length finite 1-D float arrays, or raise ValueError."""
    p = np.asarray(pr, dtype=np.float64)
    c = np.asarray(cost, dtype=np.float64)
    if p.ndim != 1 or c.ndim != 1 or p.shape != c.shape:
        raise ValueError(f"pr and cost must be 1-D of equal length, got {p.shape} and {c.shape}")
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(c))):
        raise ValueError("pr and cost must be finite")
    return p, c


def non_dominated(pr: npt.ArrayLike, cost: npt.ArrayLike) -> IntArray:
    """Return the ascending indices of the first Pareto front (max pr, min cost)."""
    p, c = _objectives(pr, cost)
    if p.size == 0:
        return np.zeros(0, dtype=np.intp)
    # pymoo minimises every column, so pass rate enters negated.
    front = NonDominatedSorting().do(np.column_stack([-p, c]), only_non_dominated_front=True)
    return np.sort(np.asarray(front, dtype=np.intp))


def survivors(pr: npt.ArrayLike, cost: npt.ArrayLike, seed_pr: float) -> IntArray:
    """Return ascending indices with pr >= seed_pr that are non-dominated among those."""
    p, c = _objectives(pr, cost)
    keep = np.flatnonzero(p >= seed_pr - SEED_TOLERANCE).astype(np.intp)
    if keep.size == 0:
        return keep
    return keep[non_dominated(p[keep], c[keep])]


def _distance(values: FloatArray, best: float, worst: float) -> FloatArray:
    """Return (values - best) / (worst - best), or zeros when the range is empty."""
    span = worst - best
    if span == 0:
        return np.zeros_like(values)
    return (values - best) / span


def objective_j(pr: npt.ArrayLike, cost: npt.ArrayLike, alpha: float, beta: float) -> FloatArray:
    """Return J = alpha * d_perf^2 + beta * d_cost^2 with d's min-max normalised over this set."""
    p, c = _objectives(pr, cost)
    if p.size == 0:
        return np.zeros(0)
    d_perf = _distance(p, float(p.max()), float(p.min()))
    d_cost = _distance(c, float(c.min()), float(c.max()))
    return alpha * d_perf**2 + beta * d_cost**2


def _ranking(p: FloatArray, c: FloatArray, alpha: float, beta: float) -> list[int]:
    """Return indices best-first by J, then higher pr, then lower cost, then lower index."""
    j = objective_j(p, c, alpha, beta)
    # lexsort's primary key is the last one.
    return [int(i) for i in np.lexsort((np.arange(p.size), c, -p, j))]


def select_modes(
    pr: npt.ArrayLike,
    cost: npt.ArrayLike,
    modes: Mapping[str, tuple[float, float]],
    max_distinct: int = 3,
) -> dict[str, int]:
    """Return, per mode name, the index (into pr/cost) of its operating point.

    pr and cost are the survivors' values; J is normalised over them. The result uses exactly
    ``budget = min(max_distinct, len(pr), len(modes))`` distinct candidates and, among such
    assignments, minimises the summed J of all modes (ties: the assignment whose picks come
    earliest in each mode's ranking by J, higher pass rate, lower cost, lower index). When the
    modes' argmins are distinct this is each mode's own argmin; when two modes collide, the
    one that loses least takes its next-best candidate, so lite stays cheap and heavy stays
    strong. Modes share a candidate only when there are fewer survivors than modes.
    Raises ValueError if there are no candidates or ``max_distinct < 1``.
    """
    p, c = _objectives(pr, cost)
    if p.size == 0:
        raise ValueError("select_modes needs at least one candidate")
    if max_distinct < 1:
        raise ValueError(f"max_distinct must be >= 1, got {max_distinct}")
    names = list(modes)
    budget = min(max_distinct, p.size, len(names))
    j = [objective_j(p, c, *modes[name]) for name in names]
    # With one candidate per mode, each mode's top `len(modes)` always hold an optimal distinct
    # assignment (Hall's theorem); when modes must share, search every candidate.
    depth = len(names) if budget == len(names) else p.size
    shortlists = [_ranking(p, c, *modes[name])[:depth] for name in names]
    best: tuple[float, list[int], tuple[int, ...]] | None = None
    for combo in itertools.product(*shortlists):
        if len(set(combo)) != budget:
            continue
        total = round(sum(float(j[m][i]) for m, i in enumerate(combo)), 12)
        ranks = [shortlists[m].index(i) for m, i in enumerate(combo)]
        key = (total, ranks, combo)
        if best is None or key < best:
            best = key
    assert best is not None  # a distinct assignment of size `budget` always exists
    return dict(zip(names, best[2], strict=True))


def hypervolume(pr: npt.ArrayLike, cost: npt.ArrayLike, ref_cost: float) -> float:
    """Return the area dominated by (pr, cost) points relative to (pr=0, cost=ref_cost)."""
    p, c = _objectives(pr, cost)
    # Points not strictly better than the reference in both objectives add no area; dropping
    # them ourselves keeps the result independent of how the HV backend treats them.
    inside = (p > 0.0) & (c < ref_cost)
    if not np.any(inside):
        return 0.0
    points = np.column_stack([-p[inside], c[inside]])
    return float(HV(ref_point=np.array([0.0, ref_cost]))(points))
