"""`evolve` runs one tiny epoch on a suite of external Harbor tasks (three termigen-dev tasks
copied to a temporary folder), and every rollout is graded by the official verifier on the
task's own layout, with its evidence kept and shown by the held-out evaluation."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.core.records import Task
from harnesspro.tasks.environment import Environment
from harnesspro.tasks.loader import load_suite
from harnesspro.tasks.verify import environment_of
from tests.conftest import shared_dataset, tiny_config

DATASET = shared_dataset("termigen-dev")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not DATASET.is_dir(), reason=f"{DATASET} is absent (shared datasets)"),
]


def with_copied_data(task: Task) -> bool:
    env = environment_of(task)
    return isinstance(env, Environment) and any(
        not c.dest.startswith(task.workdir) for c in env.copies
    )


def test_one_epoch_on_external_tasks(
    tmp_path: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = [t for t in load_suite(str(DATASET)) if with_copied_data(t)][:3]
    for task in tasks:
        shutil.copytree(task.path, tmp_path / "suite" / task.id)
    config = tiny_config(
        tmp_path,
        # Relative to the config file's folder, not to the working directory.
        tasks={"suite": "suite", "test_fraction": 0.34},
        coreset={"size": 2},
        # The scripted policy knows no external task, so the seed passes nothing and no
        # synthesized test could be scored (each must pass on some seed rollout): the run is
        # scored by the trajectory judgement (`no-synth`), which keeps the whole pipeline.
        evolution={"epochs": 1, "rollouts_per_task": 1, "strategy": "no-synth"},
        # The official verifier grades the coreset rollouts too: every row is checked below.
        evaluation={"validation_rollouts": 0, "attempts": 1, "official_on_search": True},
    )
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    out = capsys.readouterr().out
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        rows = db.execute(
            "SELECT key, task_id, split, status, official_pass, verifier_reason FROM rollouts"
        ).fetchall()
    splits = {split for _, _, split, *_ in rows}
    assert splits == {"coreset", "test"}
    assert {task_id for _, task_id, *_ in rows} == {t.id for t in tasks}
    for key, task_id, _, status, official, reason in rows:
        # The harness ran (no infrastructure fault) and the official verifier graded the
        # task's own layout: pytest ran its tests/test_outputs.py and wrote reward.txt.
        assert status == "ok" and official == 0, (task_id, status, reason)
        assert reason.startswith("reward 0 from reward.txt: "), reason
        evidence = json.loads((run_dir / "rollouts" / key / "verifier.json").read_text())
        assert "test_outputs.py" in evidence["output"]
        assert evidence["reward_files"] == {"reward.txt": "0\n"}
        assert evidence["reason"] == reason
    # The held-out evaluation names each failed official verdict with its reason.
    (test_task,) = {task_id for _, task_id, split, *_ in rows if split == "test"}
    assert "failed official verdicts" in out
    assert f"seed (c000) {test_task} attempt 0: reward 0 from reward.txt: " in out
