"""The run-level dollar cap: the run stops scheduling, overshoots by at most the rollouts in
flight, and still writes its reports."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from harnesspro.cli import main
from tests.conftest import tiny_config


def test_target_dollar_cap_stops_the_run_gracefully(tmp_path: Path, ray_session: None) -> None:
    cap = 0.02  # a seed rollout costs ~$0.01-0.02 at the test prices: a few fit
    config = tiny_config(
        tmp_path,
        budget={"max_target_dollars": cap},
        evaluation={"final": False},
        evolution={"epochs": 2, "rollouts_per_task": 2},
        ray={"max_in_flight": 2},
    )
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir), "--yes"]) == 0
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        costs = [c for (c,) in db.execute("SELECT cost FROM rollouts ORDER BY created")]
        stopped = db.execute("SELECT value FROM meta WHERE key = 'stopped'").fetchone()
    assert stopped is not None and "max_target_dollars" in stopped[0]
    assert sum(costs) >= cap
    # The overshoot is only what was already in flight: at most ray.max_in_flight (set above).
    assert sum(costs[:-2]) < cap
    report = json.loads((run_dir / "reports" / "budget.json").read_text())
    dollars = next(s for s in report["search"] if s["name"] == "target_dollars")
    assert dollars["cap"] == cap and dollars["spent"] >= cap
    assert (run_dir / "reports" / "epoch-0" / "pareto.html").is_file()


def test_candidates_a_cap_cut_short_are_never_compared(
    tmp_path: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # Enough for the seed's epoch 0, not for all of epoch 1's children.
    config = tiny_config(
        tmp_path,
        budget={"max_target_dollars": 0.2},
        evaluation={"final": False, "validation_rollouts": 0},
        evolution={"epochs": 1, "rollouts_per_task": 2},
    )
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir), "--yes"]) == 0
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        counts = dict(
            db.execute(
                "SELECT candidate_id, count(*) FROM rollouts WHERE split = 'coreset' GROUP BY 1"
            ).fetchall()
        )
        picked = {c for (c,) in db.execute("SELECT candidate_id FROM selections")}
    coreset = json.loads((run_dir / "splits.json").read_text())["coreset"]
    short = {cid for cid, n in counts.items() if n < len(coreset) * 2}  # x G = 2 (set above)
    assert short, f"the cap cut no candidate short: {counts}"  # the case under test happened
    assert not short & picked
    front = (run_dir / "reports" / "epoch-1" / "front.csv").read_text()
    assert not any(cid in front for cid in short)
    wanted = len(coreset) * 2
    named = ", ".join(
        f"{cid} ({wanted - counts[cid]} of {wanted} missing)" for cid in sorted(short)
    )
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert f"infrastructure errors took them; not compared): {named}" in out


def test_the_heldout_dollar_cap_stops_the_heldout_evaluation(
    tmp_path: Path, ray_session: None
) -> None:
    cap = 0.03  # a few held-out rollouts at the test prices, far from the whole evaluation
    config = tiny_config(
        tmp_path,
        budget={"max_heldout_dollars": cap},
        evaluation={"attempts": 1, "validation_rollouts": 0},
        evolution={"epochs": 0, "rollouts_per_task": 1},
        ray={"max_in_flight": 2},
    )
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir), "--yes"]) == 0
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        held = [c for (c,) in db.execute("SELECT cost FROM rollouts WHERE split = 'test'")]
        search = db.execute("SELECT count(*) FROM rollouts WHERE split != 'test'").fetchone()
    splits = json.loads((run_dir / "splits.json").read_text())
    assert search[0] > 0 and len(held) < 2 * len(splits["test"])  # the seed's 2K = 2 each
    assert sum(held) >= cap and sum(sorted(held)[:-2]) < cap  # overshoot: the 2 in flight
    report = json.loads((run_dir / "reports" / "budget.json").read_text())
    assert report["final_cap"] == cap and report["final_rollouts"] == len(held)
