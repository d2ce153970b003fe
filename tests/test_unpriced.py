"""An unpriced model under `allow_unpriced`: cost is unknown everywhere, never 0."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from harnesspro.cli import main


def test_unpriced_model_runs_with_unknown_cost(
    tmp_path: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "unpriced.yaml"
    config.write_text(
        "name: unpriced\n"
        "model: {name: mystery-model, upstream: scripted, allow_unpriced: true}\n"
        "coreset: {size: 2}\n"
        "evolution: {epochs: 1, rollouts_per_task: 1}\n"
        "evaluation: {final: false}\n"
    )
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        ((rollouts, unknown),) = db.execute("SELECT count(*), sum(cost IS NULL) FROM rollouts")
    assert rollouts > 0 and unknown == rollouts
    capsys.readouterr()
    assert main(["profiles", str(run_dir), "--json"]) == 0
    profiles = json.loads(capsys.readouterr().out)
    assert all(p["cost_per_task"] is None for p in profiles.values())
    assert main(["report", str(run_dir)]) == 0
    assert "unknown" in capsys.readouterr().out
