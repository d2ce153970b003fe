"""The loop's two further ablations on a finished tiny run: `harnesspro-no-screen` plans
from the surrogate in epoch 1 (no screening row), `harnesspro-raw` chooses its operating
points on raw coreset estimates (no shrunk estimate in its choice)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.evolution.strategies import make_strategy
from tests.conftest import tiny_config


def epoch_one_rationales(tmp_path: Path, strategy: str) -> list[str]:
    tmp_path.mkdir()
    config = tiny_config(tmp_path, evolution={"strategy": strategy}, evaluation={"final": False})
    run = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run)]) == 0
    with sqlite3.connect(run / "ledger.sqlite") as db:
        return [r for (r,) in db.execute("SELECT rationale FROM plans WHERE epoch = 1")]


@pytest.mark.slow
def test_no_screen_plans_from_the_surrogate_in_epoch_one(tmp_path: Path, ray_session: None) -> None:
    plain = epoch_one_rationales(tmp_path / "loop", "harnesspro")
    ablated = epoch_one_rationales(tmp_path / "no-screen", "harnesspro-no-screen")
    assert plain and all(r.startswith("screening row") for r in plain)
    assert ablated and not any(r.startswith("screening row") for r in ablated)


def test_raw_selection_is_the_loop_choosing_on_raw_estimates() -> None:
    loop, raw = make_strategy("harnesspro"), make_strategy("harnesspro-raw")
    assert loop.shrunk and not raw.shrunk
    assert type(raw).propose is type(loop).propose and raw.writes_changes
