"""Expected hypervolume gain on a 3-point front, checked by brute force: pymoo's hypervolume
for whole-front gains, a fine grid of cells for gains inside a cost band."""

from __future__ import annotations

import numpy as np
import pytest

from harnesspro.core.pareto import hypervolume
from harnesspro.improvers.planner.hvgain import (
    Band,
    choose,
    expected_gains,
    gains,
    shortlist,
    thirds,
)

FRONT = [(0.5, 1.0), (0.7, 2.0), (0.9, 4.0)]  # (pass rate, cost)
REF = (0.0, 8.0)
# four proposals, each with three equally likely posterior draws of (pass, cost)
OPTIONS = [
    [(0.6, 0.5), (0.4, 0.6), (0.5, 0.4)],  # cheap end
    [(0.8, 2.5), (0.75, 1.5), (0.6, 3.0)],  # knee
    [(0.95, 5.0), (1.0, 6.0), (0.85, 5.0)],  # strong end
    [(0.45, 3.0), (0.6, 3.5), (0.3, 2.0)],  # dominated mostly
]


def brute_gain(point: tuple[float, float]) -> float:
    pr = [p for p, _ in FRONT]
    cost = [c for _, c in FRONT]
    before = hypervolume(pr, cost, REF[1])
    return hypervolume([*pr, point[0]], [*cost, point[1]], REF[1]) - before


def grid_area(points: list[tuple[float, float]], lo: float, hi: float) -> float:
    """Area dominated by `points` inside cost band [lo, hi], by counting grid cells."""
    n = 1600
    c = (np.arange(n) + 0.5) * REF[1] / n
    p = (np.arange(400) + 0.5) / 400
    cc, pp = np.meshgrid(c, p)
    hit = np.zeros_like(cc, dtype=bool)
    for pr, cost in points:
        hit |= (cc >= cost) & (pp <= pr)
    hit &= (cc >= lo) & (cc <= hi)
    return float(hit.sum() * (REF[1] / n) * (1 / 400))


def arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    draws = len(OPTIONS[0])
    fp = np.tile([p for p, _ in FRONT], (draws, 1)).astype(float)
    fc = np.tile([c for _, c in FRONT], (draws, 1)).astype(float)
    cp = np.array([[o[s][0] for o in OPTIONS] for s in range(draws)])
    cc = np.array([[o[s][1] for o in OPTIONS] for s in range(draws)])
    return fp, fc, cp, cc


def test_expected_gain_matches_pymoo_and_the_choice_is_the_brute_force_argmax() -> None:
    fp, fc, cp, cc = arrays()
    expected = expected_gains(fp, fc, cp, cc, REF)
    brute = [np.mean([brute_gain(d) for d in option]) for option in OPTIONS]
    assert expected == pytest.approx(brute, abs=1e-9)
    whole = [Band("balanced", -np.inf, np.inf)]
    assert choose(fp, fc, cp, cc, REF, whole)[0].index == int(np.argmax(brute))


@pytest.mark.parametrize(("lo", "hi"), [(0.0, 1.5), (1.5, 3.0), (3.0, 8.0)])
def test_gain_inside_a_band_matches_a_grid_count(lo: float, hi: float) -> None:
    for option in OPTIONS:
        for point in option:
            grid = grid_area([*FRONT, point], lo, hi) - grid_area(FRONT, lo, hi)
            mine = gains(
                np.array([p for p, _ in FRONT]),
                np.array([c for _, c in FRONT]),
                np.array([point[0]]),
                np.array([point[1]]),
                REF,
                (lo, hi),
            )[0]
            assert mine == pytest.approx(grid, abs=0.01)


def test_each_directive_fills_its_own_region_of_the_front() -> None:
    fp, fc, cp, cc = arrays()
    bands = thirds(np.array([c for _, c in FRONT]), REF[1])
    picks = choose(fp, fc, cp, cc, REF, bands)
    assert [p.band.directive for p in picks] == ["cost-first", "balanced", "performance-first"]
    assert [p.index for p in picks] == [0, 1, 2]
    # a measured point (same draws as a front point) gains nothing
    assert expected_gains(fp, fc, fp[:, :1], fc[:, :1], REF)[0] == 0.0


def test_the_shortlist_keeps_each_regions_best() -> None:
    fp, fc, cp, cc = arrays()
    bands = thirds(np.array([c for _, c in FRONT]), REF[1])
    short = shortlist(fp, fc, cp, cc, REF, bands, keep=1)
    full = [p.index for p in choose(fp, fc, cp, cc, REF, bands)]
    picked = choose(fp, fc, cp[:, short], cc[:, short], REF, bands)
    assert [int(short[p.index]) for p in picked] == full
    assert 3 not in set(short.tolist())  # the mostly dominated option is nobody's best
