"""Expected hypervolume gain of the (pass rate, cost) front, by Monte Carlo over posterior draws.

Pass rate is maximised and cost minimised; the hypervolume is the area dominated by the front
and bounded by a reference point (`ref_pass`, `ref_cost`). A band `[lo, hi]` of the cost axis
restricts the area to that band: the three directives are three bands of the front (cheap
end, knee, strong end), and a proposal for one directive maximises the gain inside its band.

Under posterior draw `s`, the measured candidates make the front `F_s` and a proposal lands at
`p_s`; its expected gain is the mean over draws of `HV(F_s + p_s) - HV(F_s)`. A batch is chosen
greedily: each pick joins every draw's front at its drawn point (a fantasy), so the next pick
is judged against the front with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harnesspro.core.records import Directive

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Band:
    """A region of the front along the cost axis, with the directive that fills it."""

    directive: Directive
    lo: float
    hi: float


def _steps(front_pass: Array, front_cost: Array, ref_pass: float) -> tuple[Array, Array]:
    """The front's attainment as a step function of cost: breakpoints (sorted costs) and the
    best pass rate reached at or below each breakpoint (cumulative max)."""
    order = np.argsort(front_cost, kind="stable")
    cost = front_cost[order]
    best = np.maximum.accumulate(np.maximum(front_pass[order], ref_pass))
    return cost, best


def gains(
    front_pass: Array,
    front_cost: Array,
    cand_pass: Array,
    cand_cost: Array,
    ref: tuple[float, float],
    band: tuple[float, float] = (-np.inf, np.inf),
) -> Array:
    """Hypervolume each candidate adds to one front, inside the cost band (vectorised).

    On the band the front is a step function of cost, intervals [a_j, b_j) at heights h_j
    that never fall; a candidate (p, c) adds the integral of max(0, p - h) from c to the
    band's end: the intervals from the one holding c up to the first at height p or more,
    read off prefix sums of the widths and of height x width (one binary search each)."""
    ref_pass, ref_cost = ref
    cost, best = _steps(front_pass, front_cost, ref_pass)
    lo, hi = max(band[0], -1e300), min(band[1], ref_cost)
    start = np.clip(cand_cost, lo, hi)
    if not hi > lo or len(start) == 0:
        return np.zeros(len(cand_pass))
    b = np.concatenate([np.clip(cost, lo, hi), [hi]])
    # the first interval opens at the cheapest start (no candidate counts anything before it)
    a = np.concatenate([[max(lo, min(float(start.min()), b[0]))], b[:-1]])
    h = np.concatenate([[ref_pass], best])
    width = b - a
    sum_w = np.concatenate([[0.0], np.cumsum(width)])
    sum_hw = np.concatenate([[0.0], np.cumsum(h * width)])
    below = np.searchsorted(h, cand_pass, side="left")  # intervals lower than p: 0 .. below-1
    first = np.searchsorted(b, start, side="right")  # the interval holding the start
    at = np.minimum(first, len(h) - 1)
    full = cand_pass * (sum_w[below] - sum_w[first]) - (sum_hw[below] - sum_hw[first])
    total = full - (cand_pass - h[at]) * (start - a[at])
    return np.asarray(np.where(first < below, np.clip(total, 0.0, None), 0.0), dtype=float)


def expected_gains(
    front_pass: Array,
    front_cost: Array,
    cand_pass: Array,
    cand_cost: Array,
    ref: tuple[float, float],
    band: tuple[float, float] = (-np.inf, np.inf),
) -> Array:
    """Mean over draws (rows) of each candidate's (columns) gain against that draw's front."""
    total = np.zeros(cand_pass.shape[1])
    for s in range(cand_pass.shape[0]):
        total += gains(front_pass[s], front_cost[s], cand_pass[s], cand_cost[s], ref, band)
    return total / cand_pass.shape[0]


@dataclass(frozen=True)
class Pick:
    index: int
    band: Band
    gain: float


def choose(
    front_pass: Array,
    front_cost: Array,
    cand_pass: Array,
    cand_cost: Array,
    ref: tuple[float, float],
    bands: list[Band],
) -> list[Pick]:
    """One pick per band, in order, each maximising the expected gain in its band over the
    front with the earlier picks added (draw by draw). A band where nothing gains takes the
    best gain over the whole front; a candidate is picked once; none when nothing gains."""
    picks: list[Pick] = []
    fp, fc = front_pass, front_cost
    for band in bands:
        scores = expected_gains(fp, fc, cand_pass, cand_cost, ref, (band.lo, band.hi))
        if not np.any(scores > 0):
            scores = expected_gains(fp, fc, cand_pass, cand_cost, ref)
        scores[[p.index for p in picks]] = -np.inf
        best = int(np.argmax(scores))
        if not scores[best] > 0:
            break
        picks.append(Pick(best, band, float(scores[best])))
        fp = np.hstack([fp, cand_pass[:, best : best + 1]])
        fc = np.hstack([fc, cand_cost[:, best : best + 1]])
    return picks


def shortlist(
    front_pass: Array,
    front_cost: Array,
    cand_pass: Array,
    cand_cost: Array,
    ref: tuple[float, float],
    bands: list[Band],
    keep: int = 500,
) -> npt.NDArray[np.int64]:
    """The `keep` candidates with the largest expected gain in each distinct band (and over
    the whole front), as indices, for the greedy batch to choose among (a speed-up: 100,000
    genomes x 64 draws per pick otherwise). Picks only lower the others' gains, so a
    candidate left out could only matter once a band's `keep` best had all lost more than it."""
    spans = {(b.lo, b.hi) for b in bands} | {(-np.inf, np.inf)}
    chosen: set[int] = set()
    for span in sorted(spans):
        scores = expected_gains(front_pass, front_cost, cand_pass, cand_cost, ref, span)
        chosen.update(int(i) for i in np.argsort(-scores, kind="stable")[:keep])
    return np.array(sorted(chosen), dtype=np.int64)


def thirds(front_cost: Array, ref_cost: float) -> list[Band]:
    """Cheap end, knee and strong end: the cost span of the front cut in three, the outer
    bands open to the axis and to the reference cost."""
    low, high = float(np.min(front_cost)), float(np.max(front_cost))
    if high <= low:
        high = low * 1.5 if low > 0 else low + 1.0
    cut1, cut2 = low + (high - low) / 3, low + 2 * (high - low) / 3
    return [
        Band("cost-first", -np.inf, cut1),
        Band("balanced", cut1, cut2),
        Band("performance-first", cut2, ref_cost),
    ]
