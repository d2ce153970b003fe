"""Confirmation (`evolution.confirm_attempts`) on a tiny run under a rollout cap: the search
leaves the reserve, the seed and the operating points get one more attempt on every coreset
task, nothing else does, and the held-out evaluation uses the choice made after it."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.cli import main
from harnesspro.core.config import RunConfig
from harnesspro.core.ledger import Ledger
from tests.conftest import tiny_config

pytestmark = pytest.mark.slow  # a run per module fixture (scheduled first)

CORESET, G, SURVIVORS = 3, 2, 3
RESERVE = (1 + SURVIVORS) * CORESET * 1  # the seed and three points, one attempt per task
CAP = CORESET * G * 3 + RESERVE  # the seed and two candidates, then the reserve


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory, ray_session: None) -> Path:
    folder = tmp_path_factory.mktemp("confirm")
    evolution = {"strategy": "harnesspro", "epochs": 1, "rollouts_per_task": G,
                 "max_survivors": SURVIVORS, "confirm_attempts": 1}  # fmt: skip
    evaluation = {"attempts": 1, "validation_rollouts": 0, "max_rollouts": CAP}
    tiny_config(folder, evolution=evolution, evaluation=evaluation)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert main(["evolve", "--config", "tiny.yaml"]) == 0
    (run,) = (folder / "runs").iterdir()
    return run


@pytest.fixture(scope="module")
def ledger_frames(run_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    ledger = Ledger(run_dir / "ledger.sqlite")
    frames = ledger.rollouts(), ledger.selections()
    ledger.close()
    return frames


def test_the_reserve_is_the_seed_and_every_point_times_the_coreset() -> None:
    config = RunConfig.model_validate(
        {"name": "x", "evolution": {"max_survivors": SURVIVORS, "confirm_attempts": 1}}
    )
    assert config.evolution.confirm_reserve(CORESET) == 12  # 4 candidates x 3 tasks x 1


def test_only_the_seed_and_the_points_get_the_new_attempt(
    ledger_frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    rollouts, selections = ledger_frames
    coreset = rollouts[rollouts["split"] == "coreset"]
    last = selections[selections["epoch"] == selections["epoch"].max()]
    confirmed = {"c000", *last["candidate_id"]}
    extra = coreset[coreset["attempt"] >= G]
    assert set(extra["candidate_id"]) == confirmed
    assert set(extra["attempt"]) == {G}
    # every confirmed candidate on every coreset task, once
    assert extra.groupby("candidate_id")["task_id"].nunique().eq(CORESET).all()
    assert len(extra) == CORESET * len(confirmed)
    searched = coreset[coreset["attempt"] < G]
    assert len(searched) <= CAP - RESERVE  # the search kept the reserve
    assert len(coreset) <= CAP


def test_the_held_out_evaluation_uses_the_confirmed_choice(
    run_dir: Path, ledger_frames: tuple[pd.DataFrame, pd.DataFrame]
) -> None:
    rollouts, selections = ledger_frames
    last = selections[selections["epoch"] == selections["epoch"].max()]
    test_ids = set(rollouts[rollouts["split"] == "test"]["candidate_id"])
    assert test_ids == {"c000", *last["candidate_id"]}
    final = json.loads((run_dir / "reports" / "final.json").read_text())
    handed = {h["harness"]: h["candidate_id"] for h in final["harnesses"] if h["harness"] != "seed"}
    assert handed == dict(zip(last["mode"], last["candidate_id"], strict=True))


def test_a_cap_below_seed_and_reserve_is_refused(tmp_path: Path) -> None:
    evolution = {"strategy": "harnesspro", "epochs": 1, "rollouts_per_task": G,
                 "confirm_attempts": 1}  # fmt: skip
    evaluation = {"validation_rollouts": 0, "max_rollouts": CORESET * G + 1}
    config = tiny_config(tmp_path, evolution=evolution, evaluation=evaluation)
    assert main(["evolve", "--config", str(config), "--run-dir", str(tmp_path / "r")]) == 2
