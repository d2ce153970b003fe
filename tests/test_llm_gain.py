"""The default strategy with improver `llm`: free-form changes as features of the surrogate,
priored on the planner's predictions, sharing what their declared levers did; the surrogate
chooses among the planner's plans and the catalog's combinations."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harnesspro.core.records import Candidate, Plan, RolloutRow, Score
from harnesspro.evolution.strategies.llm_gain import Choice, chosen_plans, planned_genomes
from harnesspro.evolution.strategies.state import SearchState
from harnesspro.improvers.planner.features import (
    LEVER_PREFIX,
    Change,
    Features,
    genome_in,
    measured_changes,
)
from harnesspro.improvers.planner.measured import surrogate_of
from harnesspro.improvers.planner.screening import screening_design
from harnesspro.improvers.planner.space import GENES, exclusive_indices, name_of
from tests.conftest import evolve_tiny_in, seed_repo

TASKS = ("t0", "t1", "t2", "t3")
LOGIT = [-0.5, 0.0, 0.5, 1.0]  # the tasks' planted intercepts


def cand(cid: str, parent: str | None, mechanism: str | None, epoch: int = 1) -> Candidate:
    return Candidate(cid, f"sha-{cid}", f"tree-{cid}", parent, None, mechanism, epoch)


def rollouts(effects: dict[str, float], attempts: int = 40, seed: int = 0) -> list[RolloutRow]:
    """`attempts` rollouts per task of each candidate, pass drawn with the task's intercept
    plus the candidate's planted logit effect; cost 1.0 each."""
    rng = np.random.default_rng(seed)
    rows = []
    for cid, effect in effects.items():
        for t, task in enumerate(TASKS):
            p = 1 / (1 + math.exp(-(LOGIT[t] + effect)))
            for a in range(attempts):
                passed = bool(rng.random() < p)
                key = f"{cid}:{task}:{a}"
                rows.append(RolloutRow(key, cid, task, "coreset", "ok", passed, a, cost=1.0))
    return rows


def scores_of(rows: list[RolloutRow]) -> dict[str, Score]:
    out = {}
    for cid in dict.fromkeys(r.candidate_id for r in rows):
        verdicts = [bool(r.passed) for r in rows if r.candidate_id == cid]
        out[cid] = Score(cid, sum(verdicts) / len(verdicts), 1.0, math.nan, len(verdicts))
    return out


def test_a_change_never_measured_keeps_the_planner_prediction_as_its_posterior() -> None:
    # +0.1 pass rate is +0.4 on the logit scale (4 per unit of pass rate at 50%, as the
    # catalog's expectations); -20% cost is log(0.8) = -0.2231
    change = Change("plan-0", 0.1, -0.2, ("prompt",))
    features = Features((change,))
    candidates = {"c000": cand("c000", None, None, 0)}
    frame = rollouts({"c000": 0.0})
    model, _ = surrogate_of(frame, TASKS, candidates, scores_of(frame), features)
    column = features.names.index("plan-0")
    assert math.isclose(model.main_effects("pass").mean[column], 0.4, abs_tol=1e-9)
    assert math.isclose(model.main_effects("cost").mean[column], -0.22314355, abs_tol=1e-6)
    lever = features.names.index(LEVER_PREFIX + "prompt")
    assert math.isclose(model.main_effects("pass").mean[lever], 0.0, abs_tol=1e-9)


def test_the_genome_of_a_lineage_of_catalog_and_free_steps() -> None:
    candidates = {
        "c000": cand("c000", None, None, 0),
        "c001": cand("c001", "c000", "concise_prompt"),
        "c002": cand("c002", "c001", "ask-for-a-plan", 2),
        "c003": cand("c003", "c002", "skim_inputs", 3),
        "c004": cand("c004", "c001", "merge of c002 and c003", 3),
    }
    features = Features((Change("c002", 0.0, 0.0, ("prompt", "step cap")),))
    bits = genome_in(features, "c003", candidates)
    assert bits is not None
    on = {n for n, b in zip(features.names, bits, strict=True) if b}
    assert on == {"concise_prompt", "skim_inputs", "lever:prompt", "lever:step cap", "c002"}
    assert genome_in(features, "c004", candidates) is None  # a step that is neither
    assert genome_in(Features(), "c002", candidates) is None  # a change the features lack


def test_a_later_mechanism_displaces_one_that_sets_the_same_setting() -> None:
    # high_effort and low_effort both set request.reasoning_effort: the later edit wins
    candidates = {
        "c000": cand("c000", None, None, 0),
        "c001": cand("c001", "c000", "high_effort+skim_inputs"),
        "c002": cand("c002", "c001", "low_effort", 2),
    }
    features = Features()
    bits = genome_in(features, "c002", candidates)
    assert bits is not None
    assert {n for n, b in zip(features.names, bits, strict=True) if b} == {
        "low_effort", "skim_inputs"
    }  # fmt: skip
    plan = Plan("c001", "cost-first", "low_effort", "llm: catalog example", 0.0, -0.2)
    rows, _ = planned_genomes(features, [plan], candidates)
    assert (rows[0] == bits).all()  # proposed as it will be measured


def test_measured_changes_come_from_the_plan_that_made_the_candidate() -> None:
    candidates = {
        "c000": cand("c000", None, None, 0),
        "c001": cand("c001", "c000", "ask-for-a-plan"),
        "c002": cand("c002", "c000", "concise_prompt"),
    }
    plans = [
        # made c001
        {"epoch": 1, "parent_id": "c000", "mechanism": "ask-for-a-plan", "kind": "free",
         "child_id": "c001", "predicted_pass": 0.05, "predicted_cost": 0.1,
         "levers": '["prompt"]'},
        # its edit gave c002's tree: not what made c002
        {"epoch": 1, "parent_id": "c000", "mechanism": "shorter-prompt", "kind": "free",
         "child_id": "c002", "predicted_pass": 0.0, "predicted_cost": -0.3, "levers": "[]"},
        {"epoch": 1, "parent_id": "c000", "mechanism": "concise_prompt", "kind": "catalog",
         "child_id": "c002", "predicted_pass": 0.0, "predicted_cost": -0.2, "levers": "[]"},
        {"epoch": 1, "parent_id": "c000", "mechanism": "no-tree", "kind": "free",
         "child_id": None, "predicted_pass": 0.0, "predicted_cost": 0.0, "levers": "[]"},
    ]  # fmt: skip
    assert measured_changes(plans, candidates) == (Change("c001", 0.05, 0.1, ("prompt",)),)


def test_measured_changes_on_a_lever_carry_over_to_a_new_one_on_it() -> None:
    candidates = {
        "c000": cand("c000", None, None, 0),
        "c001": cand("c001", "c000", "plan-first"),
        "c002": cand("c002", "c000", "restate-task"),
    }
    measured = (Change("c001", 0.0, 0.0, ("prompt",)), Change("c002", 0.0, 0.0, ("prompt",)))
    proposed = (
        Change("plan-0", 0.0, 0.0, ("prompt",)),
        Change("plan-1", 0.0, 0.0, ("tool schema",)),
    )
    features = Features(measured + proposed)
    frame = rollouts({"c000": 0.0, "c001": 2.0, "c002": 2.0})
    model, _ = surrogate_of(frame, TASKS, candidates, scores_of(frame), features)
    seed = features.bits(set(), set())
    same_lever = features.bits(set(), {"plan-0"})
    other_lever = features.bits(set(), {"plan-1"})
    pr, _ = model.mean(np.array([seed, same_lever, other_lever]))
    # a change on a lever nobody measured keeps its prior (0): it predicts the seed exactly
    assert math.isclose(pr[2], pr[0], abs_tol=1e-12)
    # two changes on `prompt` that both helped (+2 logit) make the next one on it look better
    assert pr[1] - pr[0] > 0.1


def state_for(candidates: dict[str, Candidate], frame: list[RolloutRow]) -> SearchState:
    return SearchState(2, 7, candidates, scores_of(frame), frame, TASKS, 3, 2.0)


def test_the_choice_maps_its_picks_back_to_the_planner_plans() -> None:
    candidates = {
        "c000": cand("c000", None, None, 0),
        "c001": cand("c001", "c000", "merge of two"),  # a lineage the surrogate cannot place
    }
    frame = rollouts({"c000": 0.0, "c001": 0.0})
    planned = [
        Plan("c000", "balanced", "plan-first", "llm: plans", 0.3, -0.2, kind="free",
             levers=("prompt",), change="ask for a plan first"),
        Plan("c001", "balanced", "on-a-merge", "llm: x", 0.3, -0.2, kind="free",
             levers=("prompt",), change="x"),
        Plan("c000", "cost-first", "not-a-mechanism", "llm: y", 0.1, -0.1),
    ]  # fmt: skip
    chosen = chosen_plans(Choice(state_for(candidates, frame), (), False), planned)
    # only the first plan can be placed: it is chosen, its own predictions kept
    assert [p.mechanism for p in chosen] == ["plan-first"]
    (plan,) = chosen
    assert (plan.predicted_pass, plan.predicted_cost, plan.change) == (0.3, -0.2, planned[0].change)
    assert plan.rationale.startswith("llm: plans | chosen to fill the ")
    assert "expected hypervolume gain" in plan.rationale


def test_a_catalog_example_is_placed_as_its_mechanisms_on_its_parent() -> None:
    candidates = {"c000": cand("c000", None, None, 0), "c001": cand("c001", "c000", "skim_inputs")}
    planned = [
        Plan("c000", "balanced", "plan-first", "llm: plans", 0.0, 0.0, kind="free",
             levers=("prompt",), change="ask for a plan first"),
        Plan("c001", "cost-first", "concise_prompt", "llm: catalog example", 0.0, -0.2),
    ]  # fmt: skip
    features = Features((Change("plan-0", 0.0, 0.0, ("prompt",)),))
    rows, sources = planned_genomes(features, planned, candidates)
    assert sources == [0, 1]
    on = [{n for n, b in zip(features.names, row, strict=True) if b} for row in rows]
    assert on == [{"plan-0", "lever:prompt"}, {"skim_inputs", "concise_prompt"}]


def screened() -> tuple[dict[str, Candidate], list[RolloutRow]]:
    """The seed and nine screening rows of the catalog, none with any effect."""
    candidates = {"c000": cand("c000", None, None, 0)}
    for i, bits in enumerate(screening_design(9, len(GENES), exclusive_indices(), 5)):
        candidates[f"c{i + 1:03d}"] = cand(f"c{i + 1:03d}", "c000", name_of(bits))
    return candidates, rollouts(dict.fromkeys(candidates, 0.0), attempts=2)


def test_the_planner_s_best_plan_is_chosen_and_a_harmful_one_is_not() -> None:
    candidates, frame = screened()
    planned = [
        Plan("c000", "performance-first", "worse", "llm: worse", -0.4, 1.0, kind="free",
             levers=("tool schema",), change="y"),
        Plan("c000", "balanced", "better", "llm: better", 0.3, -0.3, kind="free",
             levers=("prompt",), change="x"),
    ]  # fmt: skip
    chosen = chosen_plans(Choice(state_for(candidates, frame), (), True), planned)
    assert len(chosen) == 3  # one per region of the front
    names = [p.mechanism for p in chosen]
    assert names[0] == "better" and "worse" not in names
    # the other two regions went to the catalog's combinations, applied to the seed
    for plan in chosen[1:]:
        assert plan.kind == "catalog" and plan.parent_id == "c000"
        assert set(plan.mechanism.split("+")) <= set(GENES)
        assert plan.rationale.startswith("fills the ")
    assert len({p.directive for p in chosen}) == 3


def test_without_the_catalog_the_planner_s_plans_fill_the_regions() -> None:
    candidates, frame = screened()
    planned = [
        Plan("c000", "balanced", f"idea-{i}", "llm", 0.1 * i, -0.1 * i, kind="free",
             levers=("prompt",), change=str(i))
        for i in range(4)
    ]  # fmt: skip
    chosen = chosen_plans(Choice(state_for(candidates, frame), (), False), planned)
    assert chosen and all(p.kind == "free" for p in chosen)
    assert len({p.mechanism for p in chosen}) == len(chosen) <= 3


@pytest.mark.slow
def test_llm_mode_screens_then_chooses_among_the_planner_s_plans(
    tmp_path: Path, ray_session: None
) -> None:
    evolution = {"epochs": 2, "rollouts_per_task": 2, "improver": "llm", "max_survivors": 1,
                 "strategy": "harnesspro-catalog",
                 "improver_model": {"max_edit_steps": 4}}  # fmt: skip
    run = evolve_tiny_in(tmp_path, evolution=evolution, evaluation={"final": False})
    with sqlite3.connect(run / "ledger.sqlite") as db:
        plans = pd.read_sql_query("SELECT * FROM plans", db)
        roles = set(pd.read_sql_query("SELECT role FROM search_calls", db)["role"])
    first, second = plans[plans["epoch"] == 1], plans[plans["epoch"] == 2]
    assert len(first) >= 4 and first["rationale"].str.startswith("screening row").all()
    assert {"analyzer", "planner"} <= roles
    # the planner's best plan (the scripted planner's is a free-form idea), then the catalog's
    # combinations
    (planner,) = second.index[second["rationale"].str.contains(" | chosen to fill", regex=False)]
    assert second.loc[planner, "kind"] == "free"
    assert second["rationale"].str.contains("expected hypervolume gain").all()
    # the free-form change is a feature of the surrogate: its point is shrunk like the others
    shrunk = pd.read_csv(run / "reports" / "shrunk.csv").set_index("candidate_id")
    free = shrunk.loc[second.loc[planner, "child_id"]]
    assert free["shrunk_pass_rate"] != free["raw_pass_rate"]


def test_the_repository_tells_whether_a_commit_holds_a_file(tmp_path: Path) -> None:
    repo, seed = seed_repo(tmp_path)
    assert repo.has_file(seed.commit, "harness.yaml")
    assert not repo.has_file(seed.commit, "no-such.yaml")
    assert not repo.has_file(seed.commit, "prompts")  # a folder, not a file


def test_a_harness_without_knobs_and_no_written_change_is_fitted_on_the_tasks_alone() -> None:
    """A user's harness that declares no knobs, before any free-form change is measured: the
    genomes have no columns, and the surrogate is the tasks' intercepts (the seed's own pass
    rate), not a reshape error."""
    from harnesspro.harness.mechanisms.genes import GeneSet
    from harnesspro.improvers.planner.space import Space

    features = Features(space=Space(GeneSet((), ())))
    candidates = {"c000": cand("c000", None, None, 0)}
    frame = rollouts({"c000": 0.0}, attempts=200)
    model, genomes = surrogate_of(frame, TASKS, candidates, scores_of(frame), features)
    assert genomes["c000"].shape == (0,)
    pass_rate, cost = model.mean(np.zeros((1, 0), dtype=bool))
    observed = sum(bool(r.passed) for r in frame) / len(frame)
    assert abs(pass_rate[0] - observed) < 0.01 and abs(cost[0] - 1.0) < 0.01
    rows, sources = planned_genomes(features, [], candidates)
    assert rows.shape == (0, 0) and sources == []
