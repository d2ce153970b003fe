"""The improvement loop's parts on cases worked by hand: findings from diagnoses, the
rule-based planner under each directive, the decision by expected gain against the front's
noise (and the stop), the screening and priors the findings decide, the report's trail, and
strategies as properties the steps read."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harnesspro.core.records import Candidate, Diagnosis
from harnesspro.evolution.strategies import STRATEGIES, make_strategy
from harnesspro.evolution.strategies.loop_choice import Draws, pick_bands
from harnesspro.evolution.strategies.loop_screen import pooled, prior_of, screened
from harnesspro.evolution.strategies.loop_stacks import stack_plan, stacks_for, subsets
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.improvers.analyzer.findings import Finding, answered, findings_of
from harnesspro.improvers.planner.features import Features
from harnesspro.improvers.planner.hvgain import Band
from harnesspro.improvers.planner.space import CATALOG_SPACE, GENES, name_of
from harnesspro.improvers.roles.directed import Context, directed_plans
from harnesspro.reports.findings import finding_lines

ROOT = Path(__file__).resolve().parent.parent


def diag(task: str, kind: str, count: int, effect_pass: float = 0.0) -> Diagnosis:
    return Diagnosis("c001", task, kind, count, 3, effect_pass, 0.1 * count, f"{task} ev")


def test_findings_gather_a_kind_over_tasks_with_share_every_attempt_and_weighted_impact() -> None:
    diagnoses = [
        diag("t1", "long_tool_output", 3, -0.5),  # every attempt: a property of the harness
        diag("t2", "long_tool_output", 1, 0.5),
        diag("t1", "verbose_replies", 1),
        Diagnosis("c000", "t1", "long_tool_output", 3, 3, 0, 0, ""),  # another candidate
    ]
    found = findings_of(diagnoses, "c001", n_rollouts=6)
    assert [f.kind for f in found] == ["long_tool_output", "verbose_replies"]
    top = found[0]
    assert top.share == pytest.approx(4 / 6)  # 3 + 1 of 2 tasks x G = 3
    assert top.tasks == ("t1", "t2") and top.every_attempt == ("t1",)
    assert top.effect_pass == pytest.approx((3 * -0.5 + 1 * 0.5) / 4)  # -0.25
    assert top.effect_cost == pytest.approx((3 * 0.3 + 1 * 0.1) / 4)  # 0.25
    assert "67% of rollouts" in top.describe() and "every attempt on 1" in top.describe()
    assert answered(("verbose_replies", "long_tool_output"), found) is top
    assert answered(("timeouts",), found) is None


def seed_parent() -> dict[str, Candidate]:
    return {"c000": Candidate("c000", "a", "t0", None, "seed", None, 0)}


def finding(kind: str, share: float) -> Finding:
    return Finding("c000", kind, share, ("t1",), (), -0.2, 0.4, "")


def test_the_planner_aims_each_directive_at_the_findings() -> None:
    candidates = seed_parent()
    view = Context(candidates["c000"], candidates, [finding("long_tool_output", 1.0)])
    plans = directed_plans(view)
    cost_first = {p.mechanism: p for p in plans if p.directive == "cost-first"}
    # compress_output: catalog cost -0.20 x relevance (0.25 + 0.75 x 1.0) = -0.20, and it
    # answers the finding; concise_prompt (-0.30 x 0.25 = -0.075) answers none
    assert cost_first["compress_output"].predicted_cost == pytest.approx(-0.20)
    assert cost_first["compress_output"].finding.startswith("long_tool_output in c000: 100%")
    # the rule-based improver's own change for the finding: read-less, cost -0.1 x 1.0
    written = cost_first["read-less"]
    assert written.kind == "free" and written.predicted_cost == pytest.approx(-0.1)
    assert "long_tool_output" in written.finding and "prompts/reading.md" in written.change
    # every directive gets proposals; performance-first ones raise the predicted pass rate
    assert {p.directive for p in plans} == {"cost-first", "balanced", "performance-first"}
    assert all(p.predicted_pass > 0 for p in plans if p.directive == "performance-first")
    # without the finding the same mechanism is predicted at the relevance floor only
    blind = directed_plans(Context(candidates["c000"], candidates, []))
    (floor,) = [
        p for p in blind if p.mechanism == "compress_output" and p.directive == "cost-first"
    ]
    assert floor.predicted_cost == pytest.approx(-0.05) and floor.finding == ""


def test_the_planner_never_reproposes_what_the_lineage_carries() -> None:
    candidates = {
        **seed_parent(),
        "c001": Candidate("c001", "b", "t1", "c000", "cost-first", "compress_output", 1),
        "c002": Candidate("c002", "c", "t2", "c001", "cost-first", "read-less", 2),
    }
    view = Context(candidates["c002"], candidates, [finding("long_tool_output", 1.0)])
    names = {part for p in directed_plans(view) for part in p.mechanism.split("+")}
    assert not names & {"compress_output", "read-less"}
    assert all(p.parent_id == "c002" for p in directed_plans(view))


def draws(front: tuple[float, float], pool: list[tuple[float, float]], n: int = 4) -> Draws:
    """Every posterior draw alike (no uncertainty: the standard error is 0)."""
    fp, fc = np.full((n, 1), front[0]), np.full((n, 1), front[1])
    pp = np.tile([p for p, _ in pool], (n, 1))
    pc = np.tile([c for _, c in pool], (n, 1))
    return Draws(fp, fc, pp, pc, (0.0, 2.0))


CHEAP = Band("cost-first", -math.inf, 1.0)


def test_a_band_takes_the_best_proposal_of_its_own_directive_that_clears_the_noise() -> None:
    # front: pass 0.5 at cost 1.0 (hypervolume 0.5 x (2 - 1) = 0.5; noise floor 0.5% = 0.0025);
    # A at (0.6, 0.5) adds 0.6 x (1.0 - 0.5) = 0.3 inside the cheap band; B at (0.55, 0.8)
    # adds 0.55 x 0.2 = 0.11 there
    d = draws((0.5, 1.0), [(0.6, 0.5), (0.55, 0.8)])
    picks, best, noise = pick_bands(d, [CHEAP], ["cost-first", "cost-first"])
    assert [p.index for p in picks] == [0] and picks[0].gain == pytest.approx(0.3)
    assert best == pytest.approx(0.3) and noise == pytest.approx(0.0025)
    # A planned under another directive does not compete for the cheap end
    picks, _, _ = pick_bands(d, [CHEAP], ["performance-first", "cost-first"])
    assert [p.index for p in picks] == [1] and picks[0].gain == pytest.approx(0.11)


def test_nothing_worth_trying_when_no_gain_clears_the_front_s_noise() -> None:
    # C at (0.501, 1.0): nothing inside the cheap band; over the whole front it adds
    # 0.001 x (2 - 1) = 0.001, below 0.5% of the front's hypervolume 0.5 (0.0025)
    d = draws((0.5, 1.0), [(0.501, 1.0)])
    picks, best, noise = pick_bands(d, [CHEAP], ["cost-first"])
    assert picks == [] and best == pytest.approx(0.001) and noise == pytest.approx(0.0025)


def test_a_gain_the_draws_cannot_tell_from_zero_is_noise() -> None:
    # D gains 0.3 under one draw of four and nothing under the others: mean 0.075, standard
    # error sd/sqrt(4) = 0.15/2 = 0.075 (sd of [0.3, 0, 0, 0] with ddof 1 = 0.15): 2 se = 0.15
    d = draws((0.5, 1.0), [(0.6, 0.5)])
    pool_pass = d.pool_pass.copy()
    pool_pass[1:, 0] = 0.0  # a draw in which D passes nothing gains nothing
    d = Draws(d.front_pass, d.front_cost, pool_pass, d.pool_cost, d.ref)
    picks, best, noise = pick_bands(d, [CHEAP], ["cost-first"])
    assert picks == [] and best == pytest.approx(0.075) and noise == pytest.approx(0.15)


def test_screening_starts_from_the_levers_the_findings_point_to() -> None:
    answering = {n for n, m in CATALOG.items() if "long_tool_output" in m.addresses}
    names = screened([finding("long_tool_output", 0.5)], need=len(answering))
    assert set(names) == answering  # exactly those, when they fill the design
    topped = screened([finding("long_tool_output", 0.5)], need=len(answering) + 2)
    assert set(topped[: len(answering)]) == answering and len(topped) == len(answering) + 2
    assert screened([], need=4) == list(GENES)  # without findings: every lever


def test_priors_from_the_findings_the_catalog_or_nothing() -> None:
    features = Features()
    j = GENES.index("compress_output")
    seen = {"c000": [finding("long_tool_output", 1.0)], "c001": []}
    assert pooled(seen) == {"long_tool_output": 0.5}
    # relevance 0.25 + 0.75 x 0.5 = 0.625; the catalog's -0.20 x 0.625 = -0.125
    assert prior_of("findings", seen)(features).cost_mean[j] == pytest.approx(np.log1p(-0.125))
    assert prior_of("catalog", seen)(features).cost_mean[j] == pytest.approx(np.log1p(-0.20))
    flat = prior_of("flat", seen)(features)
    assert not flat.pass_mean.any() and not flat.cost_mean.any()


def test_the_report_lists_finding_change_verdict() -> None:
    plans = pd.DataFrame(
        {
            "epoch": [2, 2, 2],
            "finding": ["long_tool_output in c003: 50% of rollouts", "", "exploration in c003"],
            "parent_id": ["c003", "c003", "c003"],
            "directive": ["cost-first", "balanced", "performance-first"],
            "mechanism": ["compress_output", "concise_prompt", "read-less"],
            "child_id": ["c010", "c011", None],
            "verdict": ["helped", "hurt", None],
            "note": ["", "", "discarded: the edit failed"],
        }
    )
    assert finding_lines(plans) == [
        "epoch 2: long_tool_output in c003: 50% of rollouts -> compress_output on c003 "
        "(cost-first) = c010 -> helped",
        "epoch 2: exploration in c003 -> read-less on c003 (performance-first) = - -> "
        "discarded: the edit failed",
    ]


def test_steps_read_strategy_properties_and_never_name_a_strategy() -> None:
    assert make_strategy("rho").single_objective and not make_strategy("rho").judge_only
    assert make_strategy("no-synth").judge_only
    assert make_strategy("harnesspro").shrunk and make_strategy("harnesspro-catalog").shrunk
    assert not make_strategy("nsga2").shrunk and not make_strategy("harnesspro-v1").shrunk
    steps = [p for p in (ROOT / "harnesspro" / "evolution").glob("*.py")]
    for path in steps:
        text = path.read_text()
        for name in STRATEGIES:
            assert not re.search(rf"""["']{re.escape(name)}["']""", text), (path.name, name)


def test_stacks_are_every_combination_of_three_or_more_with_exclusive_ones_apart() -> None:
    # of 4 free mechanisms: C(4,3) + C(4,4) = 5 stacks; with high_effort and low_effort among
    # them the 2 triples and the quadruple holding both go: 2 left
    four = ["concise_prompt", "compress_output", "skim_inputs", "format_repair"]
    assert len(subsets(four, CATALOG_SPACE)) == 5
    mixed = ["concise_prompt", "compress_output", "high_effort", "low_effort"]
    rows = subsets(mixed, CATALOG_SPACE)
    both = rows[:, [GENES.index("high_effort"), GENES.index("low_effort")]].all(axis=1)
    assert len(rows) == 2 and not both.any()


def test_a_stack_sits_on_its_parent_s_lineage_and_serves_directives_by_prediction() -> None:
    candidates = {
        **seed_parent(),
        "c001": Candidate("c001", "b", "t1", "c000", "balanced", "high_effort", 1),
    }
    view = Context(candidates["c001"], candidates, [finding("long_tool_output", 1.0)])
    stacks = stacks_for(view, Features(), view.findings)
    assert stacks is not None
    high, low = GENES.index("high_effort"), GENES.index("low_effort")
    with_low = stacks.added[:, low]
    # the parent's high_effort is carried, except where the stack's low_effort displaces it
    assert stacks.rows[~with_low, high].all() and not stacks.rows[with_low, high].any()
    assert not stacks.added[:, high].any()
    # one stack by hand: compress_output (-0.20 cost, answers the finding) + skim_inputs
    # (-0.15 x 1.0) + concise_prompt (-0.30 x 0.25): cost 0.8 x 0.85 x 0.925 - 1 = -0.371
    names = {"compress_output", "skim_inputs", "concise_prompt"}
    (row,) = np.flatnonzero([set(name_of(b).split("+")) == names for b in stacks.added])
    assert stacks.d_cost[row] == pytest.approx(0.8 * 0.85 * 0.925 - 1)
    assert stacks.serves["cost-first"][row] and not stacks.serves["performance-first"][row]
    plan = stack_plan(stacks, int(row), "cost-first", view.findings)
    assert plan.parent_id == "c001" and plan.finding.startswith("long_tool_output")


def test_a_parent_the_model_gave_no_usable_plan_gets_the_written_changes() -> None:
    """With improver 'llm', a parent whose planner reply fell back still gets changes in words
    for the model's editor: the rule-based improver's own (on a harness no catalog mechanism
    applies to, the catalog fallback alone leaves nothing to edit)."""
    from harnesspro.evolution.strategies.loop import written_fallback
    from harnesspro.improvers.roles.ideas import IDEAS

    candidates = seed_parent()
    views = {"c000": Context(candidates["c000"], candidates, [finding("long_tool_output", 1.0)])}
    plans = written_fallback({"c000": "no usable plan (no plans)"}, views)
    assert plans and all(p.kind == "free" and p.mechanism in IDEAS for p in plans)
    assert all(p.parent_id == "c000" and p.change for p in plans)
    assert "read-less" in {p.mechanism for p in plans if p.directive == "cost-first"}
    assert written_fallback({}, views) == []
