"""A prediction is judged against its own interval, and a planner's expected flips against the
measured per-task results."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from harnesspro.core.ledger import Ledger
from harnesspro.core.ledger_rows import plan_of
from harnesspro.core.records import Plan, Score
from harnesspro.improvers.planner.catalog import check_prediction
from harnesspro.improvers.planner.memory import Pairs, check_flips

PARENT = Score("c000", 0.50, 0.010, 1000, 8)


def child(pass_rate: float, cost: float) -> Score:
    return Score("c001", pass_rate, cost, 1000, 8)


def test_a_point_prediction_of_plus_ten_points_misses_a_four_point_loss() -> None:
    plan = Plan("c000", "performance-first", "high_effort", "", 0.10, 0.08)
    d_pass, d_cost, held = check_prediction(plan, PARENT, child(0.46, 0.0108))
    assert (round(d_pass, 2), round(d_cost, 2)) == (-0.04, 0.08)
    assert not held  # -4 is 14 points from +10: outside the point prediction's 5-point band
    assert check_prediction(plan, PARENT, child(0.58, 0.0108))[2]  # +8 points, +8%: held


def test_an_interval_prediction_holds_exactly_inside_its_interval() -> None:
    plan = Plan(
        "c000", "balanced", "x", "", 0.05, -0.2, pass_interval=(-0.10, 0.20),
        cost_interval=(-0.4, 0.0),
    )  # fmt: skip
    assert check_prediction(plan, PARENT, child(0.40, 0.007))[2]  # -10 points, -30%
    assert not check_prediction(plan, PARENT, child(0.375, 0.007))[2]  # -12.5 points
    assert not check_prediction(plan, PARENT, child(0.50, 0.0105))[2]  # cost +5%


def test_expected_flips_are_checked_against_each_tasks_measured_result() -> None:
    pairs = Pairs(
        np.array(["a", "a", "b", "b", "c", "c"]),
        np.array([0, 0, 0, 1, 1, 1], dtype=float),
        np.array([1, 1, 0, 1, 0, 1], dtype=float),
        np.ones(6),
        np.ones(6),
    )
    # a: 0 -> 1 (flipped up), b: unchanged, c: 1 -> 0.5 (down)
    text = check_flips(("a", "b"), pairs)
    assert text == "expected flips 1/2 measured; not flipped: b; unexpected changes: c -0.50"
    assert check_flips((), pairs) == ""


def test_a_plans_interval_survives_the_ledger(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    plan = Plan("c000", "balanced", "concise_prompt", "r", 0.0, -0.2,
                pass_interval=(-0.1, 0.1), cost_interval=(-0.3, -0.1))  # fmt: skip
    ledger.record_plan(1, plan, None)
    (row,) = ledger.plans().to_dict("records")
    assert plan_of(row) == plan
    ledger.close()
