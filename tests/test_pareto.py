"""Tests for Pareto filtering, the J objective, mode selection and hypervolume."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from harnesspro.core.pareto import hypervolume, non_dominated, objective_j, select_modes, survivors

MODES = {"lite": (0.2, 0.8), "medium": (0.5, 0.5), "heavy": (0.8, 0.2)}

# Hand-built set: 0 dominates 2 (higher PR, cheaper), 1 dominates 3 (same PR, cheaper);
# 4 has the best PR and 5 the lowest cost, so the first front is {0, 1, 4, 5}.
PR = np.array([0.5, 0.6, 0.4, 0.6, 0.7, 0.3])
COST = np.array([1.0, 2.0, 1.5, 3.0, 5.0, 0.5])


def brute_non_dominated(pr: np.ndarray, cost: np.ndarray) -> list[int]:
    """Return indices no other point weakly beats in both objectives and strictly in one."""
    n = len(pr)
    return [
        i
        for i in range(n)
        if not any(
            pr[j] >= pr[i] and cost[j] <= cost[i] and (pr[j] > pr[i] or cost[j] < cost[i])
            for j in range(n)
        )
    ]


def test_non_dominated_hand_front() -> None:
    assert non_dominated(PR, COST).tolist() == [0, 1, 4, 5]


def test_survivors_filter_by_seed_then_front() -> None:
    # PR >= 0.5 keeps {0, 1, 3, 4}; 1 dominates 3.
    assert survivors(PR, COST, 0.5).tolist() == [0, 1, 4]
    # PR >= 0.55 keeps {1, 3, 4}.
    assert survivors(PR, COST, 0.55).tolist() == [1, 4]
    # The seed's own rate survives despite rounding (0.1 + 0.2 != 0.3).
    assert survivors(PR, COST, 0.1 + 0.2).tolist() == [0, 1, 4, 5]
    # Point 5 is on the global front but is below the seed, so it does not survive.
    assert 5 not in survivors(PR, COST, 0.31).tolist()


def test_survivors_empty_when_everything_is_below_seed() -> None:
    out = survivors(PR, COST, 0.71)
    assert out.size == 0
    assert out.dtype == np.intp
    assert survivors([], [], 0.0).size == 0
    assert non_dominated([], []).size == 0


def test_single_survivor() -> None:
    assert survivors([0.9], [3.0], 0.5).tolist() == [0]
    assert objective_j([0.9], [3.0], 0.5, 0.5).tolist() == [0.0]
    assert select_modes([0.9], [3.0], MODES) == {"lite": 0, "medium": 0, "heavy": 0}


def test_all_equal_costs() -> None:
    pr = np.array([0.5, 0.7, 0.6])
    cost = np.array([2.0, 2.0, 2.0])
    assert non_dominated(pr, cost).tolist() == [1]
    # Zero cost range: d_cost = 0, d_perf = (0.7 - PR) / 0.2 = [1, 0, 0.5].
    np.testing.assert_allclose(objective_j(pr, cost, 0.2, 0.8), [0.2, 0.0, 0.05])


def test_all_equal_points() -> None:
    pr, cost = np.array([0.5, 0.5]), np.array([1.0, 1.0])
    np.testing.assert_array_equal(objective_j(pr, cost, 0.8, 0.2), [0.0, 0.0])


def test_duplicate_points_both_stay_on_front() -> None:
    pr = np.array([0.5, 0.5, 0.3, 0.8])
    cost = np.array([1.0, 1.0, 2.0, 4.0])
    # Equal points do not dominate each other; 2 is dominated by both copies.
    assert non_dominated(pr, cost).tolist() == [0, 1, 3]
    assert survivors(pr, cost, 0.5).tolist() == [0, 1, 3]


def test_objective_j_hand_values() -> None:
    # PR range 1, cost range 4: d_perf = [1, 0.5, 0.25, 0], d_cost = [0, 0.25, 0.5, 1],
    # so d_perf^2 = [1, 0.25, 0.0625, 0] and d_cost^2 = [0, 0.0625, 0.25, 1].
    pr = np.array([0.0, 0.5, 0.75, 1.0])
    cost = np.array([0.0, 1.0, 2.0, 4.0])
    # lite: 0.2 * d_perf^2 + 0.8 * d_cost^2
    lite = [0.2, 0.05 + 0.05, 0.0125 + 0.2, 0.8]
    # medium: 0.5 * (d_perf^2 + d_cost^2)
    medium = [0.5, 0.15625, 0.15625, 0.5]
    # heavy: 0.8 * d_perf^2 + 0.2 * d_cost^2
    heavy = [0.8, 0.2 + 0.0125, 0.05 + 0.05, 0.2]
    np.testing.assert_allclose(objective_j(pr, cost, 0.2, 0.8), lite)
    np.testing.assert_allclose(objective_j(pr, cost, 0.5, 0.5), medium)
    np.testing.assert_allclose(objective_j(pr, cost, 0.8, 0.2), heavy)
    # lite -> 1 (J 0.1); medium ties 1 and 2 at 0.15625 -> higher PR -> 2;
    # heavy prefers 2 (J 0.1) but medium holds it -> next best free is 3 (J 0.2).
    assert select_modes(pr, cost, MODES) == {"lite": 1, "medium": 2, "heavy": 3}


def test_objective_j_three_survivors_hand_values() -> None:
    # Survivors of the module-level set at seed 0.5: PR [0.5, 0.6, 0.7], cost [1, 2, 5].
    # d_perf = [1, 0.5, 0], d_cost = [0, 0.25, 1].
    pr = PR[[0, 1, 4]]
    cost = COST[[0, 1, 4]]
    np.testing.assert_allclose(objective_j(pr, cost, 0.2, 0.8), [0.2, 0.1, 0.8])
    np.testing.assert_allclose(objective_j(pr, cost, 0.5, 0.5), [0.5, 0.15625, 0.5])
    np.testing.assert_allclose(objective_j(pr, cost, 0.8, 0.2), [0.8, 0.2125, 0.2])
    # All three argmins collide on 1 for lite and medium. Distinct assignments by summed J:
    # (0, 1, 2) = 0.2 + 0.15625 + 0.2 = 0.55625 beats (1, 0, 2) = 0.8 and (1, 2, 0) = 1.4,
    # so lite takes the cheapest, medium the middle and heavy the strongest.
    assert select_modes(pr, cost, MODES) == {"lite": 0, "medium": 1, "heavy": 2}


def test_select_modes_without_collisions_takes_each_argmin() -> None:
    pr = np.array([0.0, 0.2, 0.5, 1.0])
    cost = np.array([0.0, 2.0, 7.0, 20.0])
    # d_perf = [1, 0.8, 0.5, 0], d_cost = [0, 0.1, 0.35, 1].
    # lite J = [0.2, 0.136, 0.148, 0.8] -> 1; medium J = [0.5, 0.325, 0.18625, 0.5] -> 2;
    # heavy J = [0.8, 0.514, 0.2245, 0.2] -> 3.
    np.testing.assert_allclose(objective_j(pr, cost, 0.2, 0.8), [0.2, 0.136, 0.148, 0.8])
    np.testing.assert_allclose(objective_j(pr, cost, 0.5, 0.5), [0.5, 0.325, 0.18625, 0.5])
    np.testing.assert_allclose(objective_j(pr, cost, 0.8, 0.2), [0.8, 0.514, 0.2245, 0.2])
    assert select_modes(pr, cost, MODES) == {"lite": 1, "medium": 2, "heavy": 3}
    assert select_modes(pr, cost, {"heavy": (0.8, 0.2), "lite": (0.2, 0.8)}) == {
        "heavy": 3,
        "lite": 1,
    }


def test_select_modes_shares_only_when_survivors_are_fewer_than_modes() -> None:
    # Two identical survivors (all J = 0): both are used, and the earliest-ranked assignment wins.
    assert select_modes([0.5, 0.5], [1.0, 1.0], MODES) == {"lite": 0, "medium": 0, "heavy": 1}
    # max_distinct = 1: every mode shares lite's pick.
    pr, cost = np.array([0.0, 0.5, 0.75, 1.0]), np.array([0.0, 1.0, 2.0, 4.0])
    assert select_modes(pr, cost, MODES, max_distinct=1) == {"lite": 1, "medium": 1, "heavy": 1}


def test_select_modes_invalid() -> None:
    with pytest.raises(ValueError, match="at least one candidate"):
        select_modes([], [], MODES)
    with pytest.raises(ValueError, match="max_distinct"):
        select_modes([0.5], [1.0], MODES, max_distinct=0)
    with pytest.raises(ValueError, match="equal length"):
        non_dominated([0.5, 0.6], [1.0])
    with pytest.raises(ValueError, match="finite"):
        survivors([0.5, float("nan")], [1.0, 2.0], 0.0)


def test_random_sets_selection_properties() -> None:
    many = {**MODES, "extra": (0.35, 0.65), "greedy": (1.0, 0.0)}
    for seed in range(300):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 15))
        # Coarse grids make ties and duplicates common.
        pr = rng.integers(0, 11, n) / 10
        cost = rng.integers(1, 6, n).astype(float)
        assert non_dominated(pr, cost).tolist() == brute_non_dominated(pr, cost)
        seed_pr = float(rng.choice(pr)) if rng.random() < 0.8 else 1.1
        surv = survivors(pr, cost, seed_pr)
        if seed_pr > 1:
            assert surv.size == 0
            continue
        assert surv.size >= 1
        assert np.all(pr[surv] >= seed_pr)
        for modes in (MODES, many):
            for max_distinct in (1, 2, 3):
                picks = select_modes(pr[surv], cost[surv], modes, max_distinct)
                assert list(picks) == list(modes)
                chosen = {int(surv[i]) for i in picks.values()}
                assert chosen <= set(surv.tolist())
                assert len(chosen) <= 3
                assert len(set(picks.values())) == min(max_distinct, surv.size, len(modes))
        # No other assignment with as many distinct picks has a smaller summed J.
        js = [objective_j(pr[surv], cost[surv], *w) for w in MODES.values()]
        picks = select_modes(pr[surv], cost[surv], MODES)
        chosen_total = sum(js[m][i] for m, i in enumerate(picks.values()))
        budget = min(3, surv.size)
        for combo in itertools.product(range(surv.size), repeat=3):
            if len(set(combo)) == budget:
                assert chosen_total <= sum(js[m][i] for m, i in enumerate(combo)) + 1e-9


def test_hypervolume_two_points_by_hand() -> None:
    # Ref (PR 0, cost 5). A = (0.5, 2) covers 0.5 * 3 = 1.5, B = (0.8, 4) covers 0.8 * 1 = 0.8,
    # overlap 0.5 * 1 = 0.5, so HV = 1.5 + 0.8 - 0.5 = 1.8.
    assert hypervolume([0.5, 0.8], [2.0, 4.0], 5.0) == pytest.approx(1.8)


def test_hypervolume_edge_cases() -> None:
    assert hypervolume([], [], 5.0) == 0.0
    assert hypervolume([0.5], [1.0], 3.0) == pytest.approx(0.5 * 2.0)
    # At or beyond the reference: zero PR, cost at the reference, cost above it.
    assert hypervolume([0.0, 0.5, 0.9], [1.0, 5.0, 7.0], 5.0) == 0.0
    # A dominated point adds nothing; a beyond-reference point adds nothing.
    assert hypervolume([0.5, 0.4, 0.9], [1.0, 2.0, 9.0], 3.0) == pytest.approx(1.0)
    assert isinstance(hypervolume([0.5], [1.0], 3.0), float)
