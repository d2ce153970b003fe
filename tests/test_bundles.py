"""Bundled catalog plans (`evolution.bundle`): which mechanisms join, what they predict, how
they are applied and checked, and what their measurement teaches (hand-worked cases)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from harnesspro.core.records import Candidate, Plan, Score
from harnesspro.evolution.strategies.no_planner import random_bundle
from harnesspro.harness.mechanisms.catalog import CATALOG, members
from harnesspro.improvers.editor.apply import apply_plan
from harnesspro.improvers.inputs import Lesson
from harnesspro.improvers.planner.catalog import plan_for
from harnesspro.improvers.planner.evidence import beliefs_from
from harnesspro.run.context import seed_template
from tests.conftest import seed_repo

SEED = Candidate("c000", "a" * 40, "t0", None, None, None, 0)
SCORE = Score("c000", 0.6, 0.01, 1000, 24)
SEEN = {"long_tool_output": 1.0}


def plans(bundle: int) -> dict[str, Plan]:
    found = plan_for(SEED, {"c000": SEED}, SEEN, {"c000": SCORE}, bundle=bundle)
    return {p.directive: p for p in found}


def test_bundle_one_is_one_mechanism_per_directive() -> None:
    # Seen long tool output fully (weight 1): compress_output -20% and skim_inputs -15% lead
    # cost-first; every other mechanism counts at the relevance floor 0.25.
    assert [p.mechanism for p in plans(1).values()] == [
        "compress_output", "skim_inputs", "verify_before_submit",
    ]  # fmt: skip


def test_two_per_plan_joins_the_next_agreeing_mechanism_on_another_lever() -> None:
    two = plans(2)
    # cost-first: compress_output (-20%) and skim_inputs (-15%, no pass loss, another lever);
    # costs multiply: 0.80 * 0.85 - 1 = -0.32.
    assert two["cost-first"].mechanism == "compress_output+skim_inputs"
    assert two["cost-first"].predicted_cost == pytest.approx(-0.32)
    assert two["cost-first"].predicted_pass == 0.0
    # balanced leads with skim_inputs (compress_output leads cost-first); its partner would be
    # compress_output again, the same bundle, so it stays alone.
    assert two["balanced"].mechanism == "skim_inputs"
    # performance-first: verify_before_submit (+0.10 * 0.25 pass, +8% * 0.25 cost); the
    # runner-up ground_check shares its lever (answer extraction), so high_effort joins
    # (+0.06 * 0.25, +35% * 0.25): pass 0.025 + 0.015, cost 1.02 * 1.0875 - 1.
    perf = two["performance-first"]
    assert perf.mechanism == "verify_before_submit+high_effort"
    assert perf.predicted_pass == pytest.approx(0.04)
    assert perf.predicted_cost == pytest.approx(1.02 * 1.0875 - 1, abs=1e-4)


def test_every_bundle_member_agrees_and_no_lever_repeats() -> None:
    for plan in plans(6).values():
        parts = members(plan.mechanism)
        assert parts, plan.mechanism
        assert len({m.lever for m in parts}) == len(parts)
        if plan.directive == "performance-first":
            assert all(m.expected_pass > 0 for m in parts), plan.mechanism


def test_a_name_with_two_mechanisms_on_one_lever_is_not_a_bundle() -> None:
    assert members("high_effort+low_effort") == ()  # both reasoning effort
    assert members("compress_output+nonsense") == ()
    assert [m.name for m in members("compress_output+skim_inputs")] == [
        "compress_output", "skim_inputs",
    ]  # fmt: skip


def test_a_bundle_applies_every_member_and_is_checked_member_by_member(tmp_path: Path) -> None:
    repo, seed = seed_repo(tmp_path)
    plan = Plan("c000", "cost-first", "compress_output+skim_inputs", "why", 0.0, -0.32)
    edit = apply_plan(plan, seed, repo, [seed], "c001", 1)
    assert edit.new and edit.candidate is not None
    work = tmp_path / "out"
    repo.export(edit.candidate.commit, work)
    assert CATALOG["compress_output"].validate(work) == ""
    assert CATALOG["skim_inputs"].validate(work) == ""
    # Applying the members one after the other by hand gives the same tree.
    by_hand = tmp_path / "by-hand"
    shutil.copytree(seed_template(), by_hand)
    CATALOG["compress_output"].apply(by_hand)
    CATALOG["skim_inputs"].apply(by_hand)
    for rel in ("harness.yaml", "prompts/skim.md"):
        assert (by_hand / rel).read_text() == (work / rel).read_text()


def lesson(name: str, verdict: str, d_pass: float, d_cost: float | None) -> Lesson:
    return Lesson(1, "c000", "c001", "cost-first", name, "catalog", (), "", 0.0, 0.0,
                  d_pass, d_cost, verdict, "")  # fmt: skip


def test_a_bundle_measurement_is_shared_among_its_members() -> None:
    beliefs = beliefs_from([lesson("compress_output+skim_inputs", "hurt", -0.2, -0.3)])
    assert beliefs.measured == {
        "compress_output": ((-0.1, -0.15),),
        "skim_inputs": ((-0.1, -0.15),),
    }
    # compress_output addresses long_tool_output; skim_inputs long_tool_output and
    # exploration: half a failure each -> long_tool_output 1 / (1 + 1) and exploration
    # 1 / (1 + 0.5).
    assert beliefs.credible("long_tool_output") == pytest.approx(0.5)
    assert beliefs.credible("exploration") == pytest.approx(1 / 1.5)


def test_the_no_planner_ablation_draws_bundles_of_the_same_size() -> None:
    rng = random.Random(0)
    free = [name for name in CATALOG if name != "concise_prompt"]
    for _ in range(50):
        parts = members(random_bundle(free, 3, rng))
        assert len(parts) == 3 and "concise_prompt" not in {m.name for m in parts}
    # Only two levers among these: the third draw has nowhere to go.
    two_levers = ["high_effort", "low_effort", "step_cap"]
    assert len(members(random_bundle(two_levers, 3, rng))) == 2


def test_a_bundle_the_library_found_harmful_is_not_planned_again() -> None:
    avoid = {"compress_output+skim_inputs": "hurt in an earlier run"}
    found = plan_for(SEED, {"c000": SEED}, SEEN, {"c000": SCORE}, avoid, bundle=2)
    names = [p.mechanism for p in found]
    assert "compress_output+skim_inputs" not in names
    # Its parts stay available: cost-first keeps its leader, alone.
    assert names[0] == "compress_output"
