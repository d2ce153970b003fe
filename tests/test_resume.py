"""Faithful resume: a run killed (-9) during an epoch's rollouts continues the same epoch -
recorded plans and candidates are reused, only missing rollouts run, nothing is re-planned."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import kill_in_held_out, start_evolve, tiny_config, wait_for_file

PLANS = "SELECT parent_id, directive, mechanism, child_id FROM plans WHERE epoch = 1 ORDER BY 1, 2"
CANDIDATES = "SELECT id, tree, parent, mechanism FROM candidates ORDER BY id"


def query(db_path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db_path) as db:
        return db.execute(sql).fetchall()


def wait_for_epoch_one_rollouts(db_path: Path, proc: subprocess.Popen[str]) -> None:
    """Until the epoch-1 candidates are journaled and some (not all) of their rollouts ran."""
    deadline = time.monotonic() + 900
    sql = "SELECT count(*) FROM rollouts WHERE epoch = 1"
    while True:
        assert proc.poll() is None, "the run ended before epoch 1's rollouts"
        assert time.monotonic() < deadline
        try:
            journaled = query(db_path, "SELECT count(*) FROM journal WHERE epoch = 1")[0][0]
            if journaled and query(db_path, sql)[0][0] >= 1:
                return
        except sqlite3.OperationalError:  # the schema is still being written
            pass
        time.sleep(0.05)


@pytest.mark.slow
def test_kill_during_epoch_one_rollouts_resumes_the_same_epoch(
    tmp_path: Path, ray_env: dict[str, str]
) -> None:
    evaluation = {"final": False, "validation_rollouts": 0}
    evolution = {"epochs": 1, "rollouts_per_task": 1}
    config = tiny_config(tmp_path, coreset={"size": 2}, evolution=evolution, evaluation=evaluation)
    run_dir = tmp_path / "run"
    argv, first = start_evolve(config, run_dir, ray_env)
    ledger = run_dir / "ledger.sqlite"
    wait_for_file(ledger, first)
    wait_for_epoch_one_rollouts(ledger, first)
    os.killpg(first.pid, signal.SIGKILL)  # kill -9 the run (Ray ends the tasks it owned)
    first.wait()
    plans, candidates = query(ledger, PLANS), query(ledger, CANDIDATES)
    assert plans and len(candidates) > 1
    second = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=ray_env)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "resuming epoch 1: its plans and candidates are reused" in second.stdout
    assert query(ledger, PLANS) == plans  # not re-planned
    assert query(ledger, CANDIDATES) == candidates  # no new candidate
    per_candidate = query(
        ledger, "SELECT count(*) FROM rollouts WHERE split = 'coreset' GROUP BY candidate_id"
    )
    assert set(per_candidate) == {(2 * 1,)}  # every candidate complete, none twice


def test_a_run_killed_in_its_held_out_evaluation_is_not_complete(
    tmp_path: Path, ray_session: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run is marked complete only after the held-out evaluation and the reports, so a
    kill there leaves it resumable (and the dashboard does not say complete meanwhile)."""
    from rich.console import Console

    from harnesspro.core.config import load_config
    from harnesspro.evolution.loop import run_evolution
    from harnesspro.run.context import RunContext
    from harnesspro.run.folder import RunFolder

    evaluation = {"validation_rollouts": 0, "attempts": 1}
    settings = {"epochs": 0, "rollouts_per_task": 1}
    path = tiny_config(tmp_path, coreset={"size": 2}, evolution=settings, evaluation=evaluation)
    run = RunFolder(tmp_path / "run")
    kill_in_held_out(path, run, monkeypatch)
    ctx = RunContext.open(load_config(path), run, Console(record=True))
    assert ctx.ledger.meta("status") != "complete"
    assert not (run.reports() / "final.csv").exists()
    run_evolution(ctx)
    assert ctx.ledger.meta("status") == "complete"
    assert (run.reports() / "final.csv").exists()
    assert "status: complete" in (run.root / "dashboard.html").read_text()
