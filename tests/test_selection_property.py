"""Property: the selected operating points always lie in the non-dominated, not-below-seed set."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harnesspro.evaluation.selection.select import choose

MODES = {"lite": (0.2, 0.8), "medium": (0.5, 0.5), "heavy": (0.8, 0.2)}

# Coarse grids make ties, duplicates and equal costs common.
point = st.tuples(st.integers(0, 8).map(lambda k: k / 8), st.integers(1, 6).map(float))
fronts = st.lists(point, min_size=1, max_size=10)


def brute_survivors(points: dict[str, tuple[float, float]], seed_pr: float) -> set[str]:
    """Not below the seed and not dominated by another such candidate, by definition."""
    kept = {i: p for i, p in points.items() if p[0] >= seed_pr}
    return {
        i
        for i, (pr, c) in kept.items()
        if not any(
            (q >= pr and d <= c) and (q > pr or d < c) for j, (q, d) in kept.items() if j != i
        )
    }


@settings(max_examples=300, deadline=None)
@given(fronts, st.integers(0, 9), st.integers(1, 4))
def test_picks_are_survivors_and_survivors_are_the_filtered_front(
    values: list[tuple[float, float]], seed_index: int, max_distinct: int
) -> None:
    points = {f"c{i:03d}": v for i, v in enumerate(values)}
    seed = f"c{seed_index % len(values):03d}"
    choice = choose(points, seed, MODES, max_distinct)
    expected = brute_survivors(points, points[seed][0])
    assert set(choice.survivors) == expected
    assert expected  # the seed is never below itself, so something always survives
    assert set(choice.picks.values()) <= expected
    assert list(choice.picks) == list(MODES)
    distinct = len(set(choice.picks.values()))
    assert distinct == min(max_distinct, len(expected), len(MODES)) <= 3
