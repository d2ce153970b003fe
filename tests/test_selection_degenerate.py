"""Selection (filter + J_m) on hand-built fronts: the degenerate cases, through selection.py."""

from __future__ import annotations

import pytest

from harnesspro.evaluation.selection.select import SeedUnscored, choose

MODES = {"lite": (0.2, 0.8), "medium": (0.5, 0.5), "heavy": (0.8, 0.2)}
SEED = "c000"


def test_everything_below_the_seed_keeps_the_seed_alone() -> None:
    points = {SEED: (0.6, 1.0), "c001": (0.5, 0.2), "c002": (0.4, 3.0), "c003": (0.59, 0.9)}
    choice = choose(points, SEED, MODES, 3)
    assert choice.survivors == (SEED,)
    assert choice.picks == {"lite": SEED, "medium": SEED, "heavy": SEED}
    assert choice.j == {"lite": 0.0, "medium": 0.0, "heavy": 0.0}


def test_only_the_seed_scored() -> None:
    choice = choose({SEED: (0.3, 2.0)}, SEED, MODES, 3)
    assert choice.survivors == (SEED,)
    assert set(choice.picks.values()) == {SEED}


def test_one_survivor_that_dominates_the_seed() -> None:
    # c002 passes more for less: it dominates the seed and c001 (below the seed).
    points = {SEED: (0.5, 1.0), "c001": (0.4, 0.5), "c002": (0.7, 0.8)}
    choice = choose(points, SEED, MODES, 3)
    assert choice.survivors == ("c002",)
    assert choice.picks == {"lite": "c002", "medium": "c002", "heavy": "c002"}


def test_equal_costs_keep_only_the_best_pass_rate() -> None:
    # Same cost everywhere: only the top pass rate survives; its two copies both do
    # (identical points do not dominate each other), so the modes use both of them.
    points = {SEED: (0.5, 1.0), "c001": (0.7, 1.0), "c002": (0.6, 1.0), "c003": (0.7, 1.0)}
    choice = choose(points, SEED, MODES, 3)
    assert choice.survivors == ("c001", "c003")
    assert set(choice.picks.values()) == {"c001", "c003"}
    assert set(choice.j.values()) == {0.0}


def test_child_identical_to_the_seed_survives_beside_it() -> None:
    points = {SEED: (0.5, 1.0), "c001": (0.5, 1.0), "c002": (0.4, 0.1)}
    assert choose(points, SEED, MODES, 3).survivors == (SEED, "c001")


def test_three_point_front_spreads_the_modes() -> None:
    # Survivors PR [0.5, 0.6, 0.7] at cost [1, 2, 5] (worked J values in test_pareto.py).
    points = {SEED: (0.5, 1.0), "c001": (0.6, 2.0), "c002": (0.7, 5.0), "c003": (0.55, 6.0)}
    choice = choose(points, SEED, MODES, 3)
    assert choice.survivors == (SEED, "c001", "c002")
    assert choice.picks == {"lite": SEED, "medium": "c001", "heavy": "c002"}
    assert choice.j == pytest.approx({"lite": 0.2, "medium": 0.15625, "heavy": 0.2})


def test_max_distinct_one_shares_a_single_pick() -> None:
    points = {SEED: (0.5, 1.0), "c001": (0.6, 2.0), "c002": (0.7, 5.0)}
    choice = choose(points, SEED, MODES, 1)
    assert len(set(choice.picks.values())) == 1


def test_unscored_seed_is_an_error_not_an_empty_front() -> None:
    with pytest.raises(SeedUnscored, match="c000"):
        choose({"c001": (0.9, 1.0)}, SEED, MODES, 3)
