"""Acceptance of the open-ended loop: two epochs with the scripted free-form improver; every
epoch accepts a candidate whose change is not a catalog edit, and git log and plans.csv show
each plan's prediction, measured effect and verdict."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.cli import main
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.harness.repo import HarnessRepo
from tests.conftest import built_once, tiny_config

pytestmark = pytest.mark.slow  # a run per module fixture (scheduled first)


@pytest.fixture(scope="module")
def open_run(request: pytest.FixtureRequest) -> Path:
    def build(folder: Path) -> None:
        request.getfixturevalue("ray_session")
        evolution = {"epochs": 2, "rollouts_per_task": 2, "improver": "llm", "max_survivors": 1}
        evaluation = {"validation_tasks": 2, "validation_rollouts": 1, "final": False}
        config = tiny_config(folder, evolution=evolution, evaluation=evaluation)
        assert main(["evolve", "--config", str(config), "--run-dir", str(folder / "run")]) == 0

    return built_once(request, "open-loop", build) / "run"


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def catalog_results(repo: HarnessRepo, commit: str) -> list[dict[str, bytes]]:
    """The parent's tree after each catalog mechanism that applies to it."""
    results = []
    for mechanism in CATALOG.values():
        with tempfile.TemporaryDirectory() as name:
            work = Path(name) / "h"
            repo.export(commit, work)
            before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
            mechanism.apply(work)
            after = {
                str(p.relative_to(work)): p.read_bytes() for p in work.rglob("*") if p.is_file()
            }
            if len(after) != len(before) or any(
                before.get(work / k) != v for k, v in after.items()
            ):
                results.append(after)
    return results


def test_every_epoch_accepts_a_change_outside_the_catalog(open_run: Path) -> None:
    with sqlite3.connect(open_run / "ledger.sqlite") as db:
        candidates = pd.read_sql_query("SELECT * FROM candidates", db).set_index("id")
        plans = pd.read_sql_query("SELECT * FROM plans", db)
    repo = HarnessRepo(open_run / "harness", open_run / "worktrees")
    for epoch in (1, 2):
        accepted = plans[(plans["epoch"] == epoch) & plans["child_id"].notna()]
        new = [c for c in accepted["child_id"] if candidates.loc[c, "epoch"] == epoch]
        outside = []
        for child in new:
            parent = candidates.loc[child, "parent"]
            files = repo.files(candidates.loc[child, "commit_sha"])
            if files not in catalog_results(repo, candidates.loc[parent, "commit_sha"]):
                outside.append(child)
        assert outside, f"epoch {epoch}: every accepted candidate is a catalog edit"


def test_plans_show_prediction_effect_and_verdict(open_run: Path) -> None:
    plans = pd.concat(
        pd.read_csv(open_run / "reports" / f"epoch-{e}" / "plans.csv") for e in (1, 2)
    )
    measured = plans[plans["measured_pass"].notna()]
    assert len(measured) >= 3 and set(measured["verdict"]) <= {
        "helped", "hurt", "no effect", "confounded"
    }  # fmt: skip
    assert measured["predicted_pass"].notna().all() and measured["predicted_cost"].notna().all()
    repo = HarnessRepo(open_run / "harness", open_run / "worktrees")
    child = str(measured.iloc[0]["child_id"])
    log = repo.repo.git.log(f"cand/{child}", "-1")
    assert f"{measured.iloc[0]['directive']}: {measured.iloc[0]['mechanism']}" in log
    assert "predicted pass" in log and "measured (" in log
    assert f"-> {measured.iloc[0]['verdict']}" in log
