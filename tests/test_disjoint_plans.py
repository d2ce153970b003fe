"""Disjoint plans per survivor (`evolution.disjoint_plans`): a screening design."""

from __future__ import annotations

from pathlib import Path

import pytest

from harnesspro.core.config import load_config
from harnesspro.core.records import Candidate, Score
from harnesspro.harness.mechanisms.catalog import members
from harnesspro.improvers.planner.catalog import plan_for
from harnesspro.improvers.planner.exploration import Exploration

SEED = Candidate("c000", "a" * 40, "t0", None, None, None, 0)
SCORE = Score("c000", 0.6, 0.01, 1000, 24)
SEEN = {"long_tool_output": 1.0, "verbose_replies": 0.5}


def mechanisms(disjoint: bool, exploration: Exploration | None = None) -> list[list[str]]:
    found = plan_for(SEED, {"c000": SEED}, SEEN, {"c000": SCORE}, bundle=2,
                     exploration=exploration, disjoint=disjoint)  # fmt: skip
    return [[m.name for m in members(p.mechanism)] for p in found]


@pytest.mark.parametrize("exploration", [None, Exploration("0:1"), Exploration("7:2")])
def test_one_survivors_plans_share_no_mechanism(exploration: Exploration | None) -> None:
    screened = mechanisms(True, exploration)
    flat = [name for plan in screened for name in plan]
    assert len(screened) == 3 and len(flat) == len(set(flat))
    assert len(flat) == 6  # bundles of 2: the three plans measure six mechanisms


def test_without_the_switch_plans_may_share_a_mechanism() -> None:
    # The case the switch exists for: the balanced plan is concise_prompt alone, already a
    # member of the cost-first bundle, so the epoch measures three mechanisms fewer.
    assert mechanisms(False)[1] == ["concise_prompt"]
    assert "concise_prompt" in mechanisms(False)[0]


def test_the_method_plans_disjoint_unless_told_otherwise(tmp_path: Path) -> None:
    """The catalog planner of `harnesspro-v1` (the default strategy plans by screening and
    expected gain, without that planner)."""
    config = tmp_path / "c.yaml"
    config.write_text("name: x\nevolution: {strategy: harnesspro-v1}\n")
    assert load_config(config).evolution.plans_disjoint
    assert not load_config(config, ["evolution.disjoint_plans=false"]).evolution.plans_disjoint
    assert not load_config(config, ["evolution.strategy=random"]).evolution.disjoint_plans
