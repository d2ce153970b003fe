"""Thompson sampling in the catalog planner (`evolution.exploration`), on hand-worked cases."""

from __future__ import annotations

import pytest

from harnesspro.core.records import Candidate, Score
from harnesspro.harness.mechanisms.catalog import CATALOG, members
from harnesspro.improvers.planner.catalog import combined, plan_for, predict
from harnesspro.improvers.planner.exploration import COST_SD, PASS_SD, Exploration

SEED = Candidate("c000", "a" * 40, "t0", None, None, None, 0)
SCORE = Score("c000", 0.6, 0.01, 1000, 24)
SEEN = {"long_tool_output": 1.0}


def planned(exploration: Exploration | None) -> list[str]:
    found = plan_for(SEED, {"c000": SEED}, SEEN, {"c000": SCORE}, bundle=2, exploration=exploration)
    return [p.mechanism for p in found]


def test_the_spread_is_the_catalogs_mean_effect_and_halves_after_three_measurements() -> None:
    # by hand from the catalog's 16 mechanisms: |pass| effects sum to 0.48, |cost| to 1.97
    assert pytest.approx((0.48 / 16, 1.97 / 16)) == (PASS_SD, COST_SD)
    p = predict(CATALOG["fenced_tools"], SEEN)
    explore = Exploration("0:1")
    fresh, measured = explore.draw("c000", p, 0), explore.draw("c000", p, 3)
    # the same draw, scaled by 1/sqrt(1 + 3) = 1/2
    assert measured.d_pass - p.d_pass == pytest.approx((fresh.d_pass - p.d_pass) / 2)
    assert measured.d_cost - p.d_cost == pytest.approx((fresh.d_cost - p.d_cost) / 2)
    assert explore.draw("c000", p, 0) == fresh  # seeded: a resumed epoch draws the same


def test_plans_record_the_means_of_what_the_draws_chose() -> None:
    explore = Exploration("0:1")
    for plan in plan_for(SEED, {"c000": SEED}, SEEN, {"c000": SCORE}, bundle=2,
                         exploration=explore):  # fmt: skip
        mean = combined([predict(m, SEEN) for m in members(plan.mechanism)])
        assert plan.predicted_pass == pytest.approx(mean.d_pass, abs=1e-4)
        assert plan.predicted_cost == pytest.approx(mean.d_cost, abs=1e-4)


def test_draws_reach_mechanisms_the_means_never_plan() -> None:
    greedy = {m.name for name in planned(None) for m in members(name)}
    explored = {m.name for epoch in range(20) for name in planned(Exploration(f"0:{epoch}"))
                for m in members(name)}  # fmt: skip
    # 20 epochs of draws reach mechanisms the means never plan, among them one whose prior is
    # no pass change (fenced_tools)
    assert "fenced_tools" not in greedy and "fenced_tools" in explored
    assert len(explored) > len(greedy)
