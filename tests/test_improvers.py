"""Analyzer, planner and editor in catalog mode."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from harnesspro.core.records import DIRECTIVES, Candidate, Plan, Score, Trace
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.harness.validate import validate_harness
from harnesspro.improvers.analyzer.rules import analyze, prevalence
from harnesspro.improvers.editor.apply import apply_plan
from harnesspro.improvers.inputs import Lesson
from harnesspro.improvers.planner.catalog import excluded, plan_for, predict
from harnesspro.improvers.planner.evidence import beliefs_from
from harnesspro.run.context import seed_template
from tests.conftest import seed_repo


def trace(key: str, passed: bool, commands: list[str], chars: int = 10) -> Trace:
    events = []
    for n, command in enumerate(commands, 1):
        events.append({"type": "model_call", "step": n, "content": "word " * 40})
        events.append({"type": "tool_call", "step": n, "command": command})
        events.append({"type": "tool_result", "step": n, "chars": chars, "output": "x"})
    return Trace(key, "c0", "t1", passed, "\n".join(map(json.dumps, events)), 100, len(commands))


def test_analyzer_counts_how_many_of_g_rollouts_show_a_problem() -> None:
    traces = [
        trace("k1", False, ["cat a", "cat a", "sort a > b"], chars=5000),
        trace("k2", True, ["sort a > b"]),
        trace("k3", True, ["ls", "cat a", "sort a > b"]),
    ]
    found = {d.kind: d for d in analyze(traces)}
    assert (found["task_failures"].count, found["task_failures"].of) == (1, 3)
    # impacts by hand: the failing rollout k1 against k2, k3 (both pass): -1 point of pass
    # rate; exploration shows in k1 (fails) and k3 (passes), not in k2 (passes): 0.5 - 1
    assert found["task_failures"].effect_pass == -1.0
    assert found["exploration"].effect_pass == -0.5
    assert found["verbose_replies"].effect_pass == 0.0  # all three show it: no contrast
    assert found["repeated_commands"].count == 1 and "k1" in found["repeated_commands"].evidence
    assert found["long_tool_output"].count == 1
    assert found["exploration"].count == 2
    assert found["verbose_replies"].count == 3
    assert prevalence(analyze(traces), "c0", 3)["exploration"] == 2 / 3


SEED = Candidate("c000", "a" * 40, "t0", None, None, None, 0)
SCORE = Score("c000", 0.6, 0.01, 1000, 24)


def test_three_distinct_plans_one_per_directive() -> None:
    plans = plan_for(
        SEED, {"c000": SEED}, {"task_failures": 0.4, "verbose_replies": 1.0}, {"c000": SCORE}
    )
    assert [p.directive for p in plans] == list(DIRECTIVES)
    assert len({p.mechanism for p in plans}) == 3
    cost_first, _, performance_first = plans
    assert cost_first.predicted_cost < 0
    assert performance_first.predicted_pass > 0


def test_prediction_scales_with_how_often_the_problem_was_seen() -> None:
    mech = CATALOG["compress_output"]
    assert predict(mech, {"long_tool_output": 1.0}).d_cost < predict(mech, {}).d_cost < 0


def test_a_change_tried_without_benefit_is_not_proposed_again() -> None:
    child = Candidate("c001", "b" * 40, "t1", "c000", "cost-first", "step_cap", 1)
    grandchild = Candidate("c002", "c" * 40, "t2", "c000", "balanced", "concise_prompt", 1)
    candidates = {"c000": SEED, "c001": child, "c002": grandchild}
    scores = {
        "c000": SCORE,
        "c001": Score("c001", 0.5, 0.02, 1, 24),  # worse and dearer: no benefit
        "c002": Score("c002", 0.6, 0.005, 1, 24),
    }
    assert excluded("c002", candidates, scores) == {"concise_prompt", "step_cap"}
    assert excluded("c000", candidates, scores) == {"concise_prompt", "step_cap"}


def test_every_mechanism_applies_to_the_seed_and_validates(tmp_path: Path) -> None:
    for name, mechanism in CATALOG.items():
        work = tmp_path / name
        shutil.copytree(seed_template(), work)
        before = (work / "harness.yaml").read_text() + (work / "prompts" / "system.md").read_text()
        mechanism.apply(work)
        after = (work / "harness.yaml").read_text() + (work / "prompts" / "system.md").read_text()
        assert after != before, name
        assert validate_harness(work, seed_template()) == "", name
        assert isinstance(yaml.safe_load((work / "harness.yaml").read_text()), dict)


def test_editor_commits_each_plan_in_its_own_worktree_and_dedups(tmp_path: Path) -> None:
    repo, seed = seed_repo(tmp_path)
    plan = Plan("c000", "cost-first", "compress_output", "why", 0.0, -0.1)
    edit = apply_plan(plan, seed, repo, [seed], "c001", 1)
    assert edit.new and edit.candidate is not None
    child = edit.candidate
    assert (tmp_path / "worktrees" / "c001" / "harness.yaml").is_file()
    assert "compress_output" in repo.repo.commit(child.commit).message
    assert repo.repo.commit(child.commit).parents[0].hexsha == seed.commit
    # The same plan again from the same parent is the same candidate (resume).
    assert apply_plan(plan, seed, repo, [seed, child], "c002", 1).candidate == child
    # A different route to an identical tree is deduplicated.
    twin = Candidate("c009", child.commit, child.tree, "c000", "balanced", "other", 1)
    edit2 = apply_plan(plan, seed, repo, [seed, twin], "c002", 1)
    assert not edit2.new and edit2.candidate == twin
    assert not (tmp_path / "worktrees" / "c002").exists()


def test_validation_rejects_a_changed_immutable_path(tmp_path: Path) -> None:
    work = tmp_path / "h"
    shutil.copytree(seed_template(), work)
    (work / "harness.toml").write_text((work / "harness.toml").read_text() + "\n# edited\n")
    assert "immutable path harness.toml" in validate_harness(work, seed_template())
    (work / "harness.toml").unlink()
    assert validate_harness(work, seed_template()) == "harness.toml is missing"


def lesson(name: str, verdict: str, d_pass: float, d_cost: float | None) -> Lesson:
    return Lesson(1, "c000", "c001", "balanced", name, "catalog", (), "", 0.0, 0.0,
                  d_pass, d_cost, verdict, "")  # fmt: skip


def test_measured_effects_and_discredited_symptoms_move_the_predictions() -> None:
    # ground_check: catalog +0.08 pass, +10% cost; addresses task_failures, unrecovered_errors.
    seen = {"task_failures": 1.0}
    assert predict(CATALOG["ground_check"], seen).d_pass == 0.08  # seen fully: weight 1
    # verify_before_submit (also a task_failures fix) measured with no effect: the symptom
    # keeps (1 + 0) / (1 + 0 + 1) = 1/2 of its credit, so ground_check's weight becomes
    # 0.25 + 0.75 * 0.5 = 0.625 (RELEVANCE_FLOOR 0.25, written out by hand here).
    beliefs = beliefs_from([lesson("verify_before_submit", "no effect", 0.0, 0.01)])
    assert beliefs.credible("task_failures") == 0.5
    assert abs(predict(CATALOG["ground_check"], seen, beliefs).d_pass - 0.08 * 0.625) < 1e-12
    # verify_before_submit itself: the prior at weight 0.625 (+0.0625 pass, +5% cost) averaged
    # with its one measurement (0 pass, +1% cost).
    own = predict(CATALOG["verify_before_submit"], seen, beliefs)
    assert abs(own.d_pass - (0.10 * 0.625 + 0.0) / 2) < 1e-12
    assert abs(own.d_cost - (0.08 * 0.625 + 0.01) / 2) < 1e-12
    # Confounded verdicts teach nothing; an unknown cost leaves the cost prior alone.
    assert beliefs_from([lesson("ground_check", "confounded", -0.5, 0.3)]).measured == {}
    unpriced = beliefs_from([lesson("ground_check", "helped", 0.2, None)])
    assert predict(CATALOG["ground_check"], seen, unpriced).d_cost == 0.10


def test_a_misleading_symptom_turns_the_planner_to_other_levers() -> None:
    seen = {"task_failures": 1.0}
    before = plan_for(SEED, {"c000": SEED}, seen, {"c000": SCORE})
    assert before[-1].mechanism == "verify_before_submit"  # performance-first, on the symptom
    beliefs = beliefs_from(
        [
            lesson("verify_before_submit", "hurt", -0.2, 0.3),
            lesson("ground_check", "hurt", -0.1, 0.2),
        ]
    )
    after = plan_for(SEED, {"c000": SEED}, seen, {"c000": SCORE}, None, beliefs)
    fixes = {"verify_before_submit", "ground_check"}
    assert after[-1].mechanism not in fixes


def test_analyzer_cost_impact_contrasts_token_counts() -> None:
    """k1 repeats a command and bills 300 tokens; k2 and k3 bill 100: +200% cost."""
    heavy = trace("k1", True, ["cat a", "cat a"])
    heavy = Trace(heavy.key, "c0", "t1", True, heavy.trajectory, 300, 2)
    traces = [heavy, trace("k2", True, ["sort a"]), trace("k3", True, ["wc a"])]
    found = {d.kind: d for d in analyze(traces)}
    assert found["repeated_commands"].effect_cost == 2.0
    assert found["repeated_commands"].effect_pass == 0.0
