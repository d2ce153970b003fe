"""The default strategy (the improvement loop) end to end on a tiny run: diagnoses recorded
each epoch, plans under the three directives naming the finding each answers, parents other
than the seed from epoch 2 on, the report's finding -> change -> verdict; and a run whose
proposals cannot clear the front's noise ends early and says what it saved."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.core.ledger import Ledger
from harnesspro.evolution.strategies import loop_choice
from harnesspro.reports.findings import finding_lines
from tests.conftest import evolve_tiny_in

pytestmark = pytest.mark.slow

EVOLUTION = {"strategy": "harnesspro", "epochs": 3, "rollouts_per_task": 2}
EVALUATION = {"final": False}


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory, ray_session: None) -> Ledger:
    run = evolve_tiny_in(
        tmp_path_factory.mktemp("loop"), evolution=EVOLUTION, evaluation=EVALUATION
    )
    return Ledger(run / "ledger.sqlite")


def test_every_epoch_records_its_diagnoses(ledger: Ledger) -> None:
    diagnosed = set(ledger.diagnoses()["epoch"])
    planned = set(ledger.plans()["epoch"])
    assert planned and planned <= diagnosed and 1 in diagnosed


def test_plans_span_the_three_directives_and_name_their_findings(ledger: Ledger) -> None:
    plans = ledger.plans()
    assert set(plans["directive"]) == {"cost-first", "balanced", "performance-first"}
    for _, rows in plans.groupby("epoch"):
        assert (rows["finding"].fillna("") != "").any()
    later = plans[plans["epoch"] >= 2]
    assert later["rationale"].str.contains("expected hypervolume gain").all()


def test_lineages_grow_from_the_selected_parents(ledger: Ledger) -> None:
    plans = ledger.plans()
    assert set(plans[plans["epoch"] == 1]["parent_id"]) == {"c000"}
    later = plans[plans["epoch"] >= 2]
    assert (later["parent_id"] != "c000").any()
    selected = ledger.selections()
    for epoch, rows in later.groupby("epoch"):
        parents = set(selected[selected["epoch"] == epoch - 1]["candidate_id"])
        assert set(rows["parent_id"]) <= parents


def test_the_report_lists_finding_change_verdict(ledger: Ledger) -> None:
    lines = finding_lines(ledger.plans())
    verdicts = ("helped", "hurt", "no effect", "confounded")
    assert any(line.endswith(verdicts) for line in lines)


def test_a_run_with_nothing_worth_trying_ends_early(
    tmp_path: Path, ray_session: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loop_choice, "MIN_SHARE", 1e6)  # no gain clears a million fronts
    run = evolve_tiny_in(tmp_path, evolution=EVOLUTION, evaluation=EVALUATION)
    ledger = Ledger(run / "ledger.sqlite")
    reason = str(ledger.meta("stopped"))
    plans: pd.DataFrame = ledger.plans()
    finished = set(ledger.finished_epochs()["epoch"])
    ledger.close()
    assert reason.startswith("the run ends early at epoch 2")
    # 2 epochs left (2 and 3) x 3 regions x 3 picks x 3 tasks x G = 2
    assert reason.endswith("about 108 search rollouts saved")
    assert set(plans["epoch"]) == {1} and 3 not in finished


def test_with_improver_llm_the_model_s_plans_join_the_catalog_s(
    tmp_path: Path, ray_session: None
) -> None:
    evolution = {**EVOLUTION, "epochs": 2, "improver": "llm", "max_survivors": 1,
                 "improver_model": {"max_edit_steps": 4}}  # fmt: skip
    run = evolve_tiny_in(tmp_path, evolution=evolution, evaluation=EVALUATION)
    with sqlite3.connect(run / "ledger.sqlite") as db:
        roles = set(pd.read_sql_query("SELECT role FROM search_calls", db)["role"])
        diagnosed = set(pd.read_sql_query("SELECT epoch FROM diagnoses", db)["epoch"])
        plans = pd.read_sql_query("SELECT * FROM plans WHERE epoch = 2", db)
    assert {"analyzer", "planner"} <= roles and diagnosed == {1, 2}
    assert plans["rationale"].str.contains("chosen to fill").all()
