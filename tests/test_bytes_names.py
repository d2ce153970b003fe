"""File names that are not UTF-8: a harness may leave any bytes as a name in its workspace,
and the run must snapshot, score, report and resume it like any other name."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.context import seed_template
from tests.conftest import tiny_config

RAW = b"notes\xff.txt"
NAME = os.fsdecode(RAW)  # "notes\udcff.txt": the surrogate escape of byte 0xff


def naming_harness(tmp_path: Path) -> Path:
    """The seed agent, which also leaves `notes\\xff.txt` in the task's working directory."""
    harness = tmp_path / "naming-harness"
    shutil.copytree(seed_template(), harness, ignore=shutil.ignore_patterns("__pycache__"))
    main_py = harness / "agent" / "__main__.py"
    run = '    Agent(config, task, os.environ["HARNESSPRO_OUT"]).run()\n'
    plant = f'    (Path(task["workdir"]) / os.fsdecode({RAW!r})).write_text("x\\n")\n'
    source = main_py.read_text()
    assert run in source
    main_py.write_text(source.replace(run, plant + run))
    return harness


def test_a_run_whose_harness_writes_a_non_utf8_name_completes_and_resumes(
    tmp_path: Path, ray_session: None
) -> None:
    config = tiny_config(
        tmp_path,
        coreset={"size": 2},
        evolution={"epochs": 1, "rollouts_per_task": 1},
        evaluation={"validation_rollouts": 0, "attempts": 1},
        harness={"seed": str(naming_harness(tmp_path))},
    )
    run_dir = tmp_path / "run"
    argv = ["evolve", "--config", str(config), "--run-dir", str(run_dir)]
    assert main(argv) == 0
    saved = [p for p in (run_dir / "artifacts").rglob("*") if p.name == NAME]
    assert saved  # the name is kept as its bytes, not dropped
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        before = db.execute("SELECT key, created FROM rollouts ORDER BY key").fetchall()
    assert main(argv) == 0  # the resume reads it all back
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        assert db.execute("SELECT key, created FROM rollouts ORDER BY key").fetchall() == before
