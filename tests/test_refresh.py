"""Failure-conditioned coreset refresh: the trade by hand, and a tiny run that refreshes
after the seed's epoch and then compares candidates on the new coreset only."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.cli import main
from harnesspro.core.config import load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.metrics import covering
from harnesspro.core.records import RolloutRow
from harnesspro.evolution.refresh import trade
from tests.conftest import tiny_config


def rows(*spec: tuple[str, str, str, int]) -> list[RolloutRow]:
    return [RolloutRow(f"k{n}", c, t, s, "ok", bool(p)) for n, (c, t, s, p) in enumerate(spec)]


def test_trade_by_hand() -> None:
    frame = rows(
        # t1: solved by all
        ("a", "t1", "coreset", 1), ("a", "t1", "coreset", 1), ("b", "t1", "coreset", 1),
        ("a", "t2", "coreset", 1), ("b", "t2", "coreset", 1), ("b", "t2", "coreset", 0),  # b: 1/2
        ("a", "v1", "validation", 0), ("b", "v1", "validation", 1), ("b", "v1", "validation", 0),
        ("a", "v2", "validation", 1), ("b", "v2", "validation", 0),  # a solves v2
        ("a", "v3", "validation", 0),  # b never ran v3: unknown, not unsolved
    )  # fmt: skip
    texts = {"v1": "fix the parser", "v2": "sort a file", "v3": "rotate backups"}
    done = trade(frame, ["a", "b"], ["t1", "t2"], ["v1", "v2", "v3"], texts)
    assert (done.dropped, done.added) == (("t1",), ("v1",))
    assert trade(frame, ["b"], ["t2"], ["v1"], texts).added == ()  # nothing solved by all


def test_covering_keeps_only_full_coverage() -> None:
    table = rows(("a", "t1", "coreset", 1), ("a", "t2", "coreset", 0), ("b", "t1", "coreset", 1))
    assert {r.candidate_id for r in covering(table, ["t1", "t2"])} == {"a"}


@pytest.mark.slow
def test_run_refreshes_and_scores_on_the_common_task_set(tmp_path: Path, ray_session: None) -> None:
    evaluation = {"validation_tasks": 6, "validation_rollouts": 1, "final": False}
    config = tiny_config(
        tmp_path, evaluation=evaluation, coreset={"size": 3, "refresh": "failures"}
    )
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    db = sqlite3.connect(run_dir / "ledger.sqlite")
    (history,) = db.execute("SELECT value FROM meta WHERE key = 'refreshes'").fetchone()
    (refresh,) = json.loads(history)
    assert refresh["epoch"] == 0 and refresh["added"]  # after the seed's epoch
    splits = json.loads((run_dir / "splits.json").read_text())
    (before,) = db.execute("SELECT value FROM meta WHERE key = 'splits'").fetchone()
    assert json.loads(before) == splits
    frame = pd.read_sql_query("SELECT * FROM rollouts", db)
    seed = frame[frame["candidate_id"] == "c000"]
    early = seed[seed["epoch"] == 0]  # what the refresh after epoch 0 saw
    for task in refresh["dropped"]:  # the seed passed most of its coreset rollouts ...
        assert (
            early[(early["task_id"] == task) & (early["split"] == "coreset")]["pass"].mean() > 0.5
        )
        assert task not in splits["coreset"] and task not in splits["validation"]
    for task in refresh["added"]:  # ... and at most half of its validation ones
        mine = early[(early["task_id"] == task) & (early["split"] == "validation")]["pass"]
        assert len(mine) and mine.mean() <= 0.5
        assert task in splits["coreset"] and task not in splits["validation"]
    frozen = {t for (t,) in db.execute("SELECT task_id FROM synth_tests")}
    assert set(splits["coreset"]) <= frozen
    # Epoch 1 compares only candidates with rollouts on every task of the new coreset.
    picked = {c for (c,) in db.execute("SELECT candidate_id FROM selections WHERE epoch = 1")}
    for candidate in picked | {"c000"}:
        mine = frame[(frame["candidate_id"] == candidate) & frame["pass"].notna()]
        assert set(splits["coreset"]) <= set(mine["task_id"])


def test_refresh_without_validation_is_refused(tmp_path: Path) -> None:
    config = tiny_config(
        tmp_path, coreset={"size": 3, "refresh": "failures"}, evaluation={"validation_rollouts": 0}
    )
    with pytest.raises(ConfigError, match="validation_rollouts must not be 0"):
        load_config(config)
