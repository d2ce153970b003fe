"""Latency and lever coverage: hand-worked frames, and the CSVs of a finished run."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.reports.levers import candidate_latency, describe, lever_coverage, plan_levers


def rollout(
    candidate: str, passed: float, cost: float | None, latency: float, **kw: object
) -> dict[str, object]:
    row = {"candidate_id": candidate, "task_id": "t1", "split": "coreset", "status": "ok"}
    return {**row, "pass": passed, "cost": cost, "latency_s": latency, **kw}


def test_latency_beside_pass_and_cost_leaves_out_infra_faults() -> None:
    frame = pd.DataFrame(
        [
            rollout("a", 1, 0.02, 10.0),
            rollout("a", 0, 0.04, 20.0),
            rollout("a", 1, 0.5, 999.0, status="infra_error"),
            rollout("a", 1, 0.5, 999.0, split="test"),
            rollout("b", 1, None, 4.0),
        ]
    )
    table = candidate_latency(frame, ["t1"], "coreset").set_index("candidate_id")
    assert table.loc["a", "latency_s"] == 15.0 and table.loc["a", "pass_rate"] == 0.5
    assert table.loc["a", "cost_per_task"] == pytest.approx(0.03)
    assert table.loc["b", "cost_per_task"] is None or math.isnan(table.loc["b", "cost_per_task"])


def test_lever_coverage_counts_verdicts_per_lever() -> None:
    plans = pd.DataFrame(
        [
            {"mechanism": "concise_prompt", "levers": "[]", "verdict": "helped"},
            {"mechanism": "x", "levers": json.dumps(["prompt", "step cap"]), "verdict": "hurt"},
            {"mechanism": "y", "levers": json.dumps(["step cap"]), "verdict": None},
        ]
    )
    table = lever_coverage(plans).set_index("lever")
    assert table.loc["prompt", ["tried", "helped", "hurt"]].tolist() == [2, 1, 1]
    assert table.loc["step cap", ["tried", "hurt", "unmeasured"]].tolist() == [2, 1, 1]
    assert "prompt in 2" in describe(lever_coverage(plans))
    assert "helped" not in describe(lever_coverage(plans))  # a stack's verdict is its own


@pytest.mark.slow
def test_a_bundle_plan_touches_each_member_s_lever() -> None:
    # The catalog says: concise_prompt works the prompt, skim_inputs the retrieval policy.
    # Before, a bundle's name was looked up whole and every bundle counted as "unknown".
    bundle = {"mechanism": "concise_prompt+skim_inputs", "levers": "[]"}
    assert plan_levers(bundle) == ["prompt", "retrieval policy"]
    assert plan_levers({"mechanism": "concise_prompt", "levers": None}) == ["prompt"]
    assert plan_levers({"mechanism": "concise_prompt+nonsense"}) == ["unknown"]
    assert plan_levers({"mechanism": "x", "levers": '["memory"]'}) == ["memory"]
    # an nsga2 genome: two mechanisms on the step cap lever count it once
    genome = {"mechanism": "budget_notices+step_cap+high_effort", "levers": None}
    assert plan_levers(genome) == ["step cap", "reasoning effort"]


def test_finished_run_writes_latency_and_lever_csvs(finished_tiny_run: Path) -> None:
    latency = pd.read_csv(finished_tiny_run / "reports" / "latency.csv")
    with sqlite3.connect(finished_tiny_run / "ledger.sqlite") as db:
        expected = dict(db.execute(
            "SELECT candidate_id, avg(latency_s) FROM rollouts WHERE split = 'coreset' "
            "AND status != 'infra_error' GROUP BY 1"
        ).fetchall())  # fmt: skip
        planned = db.execute("SELECT count(*) FROM plans").fetchone()[0]
    assert dict(zip(latency["candidate_id"], latency["latency_s"], strict=True)) == pytest.approx(
        expected
    )
    assert (latency["latency_s"] > 0).all()
    levers = pd.read_csv(finished_tiny_run / "reports" / "levers.csv")
    assert levers["tried"].sum() >= planned > 0
