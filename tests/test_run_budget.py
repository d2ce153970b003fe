"""The run-level dollar cap: the run stops scheduling, overshoots by at most the rollouts in
flight, and still writes its reports."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from harnesspro.cli import main
from tests.conftest import tiny_config


def test_target_dollar_cap_stops_the_run_gracefully(tmp_path: Path, ray_session: None) -> None:
    cap = 0.02  # a seed rollout costs ~$0.01-0.02 at the test prices: a few fit
    config = tiny_config(
        tmp_path,
        budget={"max_target_dollars": cap},
        evaluation={"final": False},
        evolution={"epochs": 2, "rollouts_per_task": 2},
    )
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        costs = [c for (c,) in db.execute("SELECT cost FROM rollouts ORDER BY created")]
        stopped = db.execute("SELECT value FROM meta WHERE key = 'stopped'").fetchone()
    assert stopped is not None and "max_target_dollars" in stopped[0]
    in_flight = 2 + 1  # the 2-CPU session Ray, 1 CPU per rollout: 2 slots + 1 queued
    assert sum(costs) >= cap
    assert sum(costs[:-in_flight]) < cap  # the overshoot is only what was already in flight
    report = json.loads((run_dir / "reports" / "budget.json").read_text())
    dollars = next(s for s in report["search"] if s["name"] == "target_dollars")
    assert dollars["cap"] == cap and dollars["spent"] >= cap
    assert (run_dir / "reports" / "epoch-0" / "pareto.html").is_file()
