"""Confirmation (`evolution.confirm_attempts`) on a tiny run under a rollout cap: the search
leaves the reserve, the seed and the operating points get one more attempt on every coreset
task, nothing else does, and the held-out evaluation uses the choice made after it."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from harnesspro.cli import main
from harnesspro.core.config import RunConfig, load_config
from harnesspro.core.ledger import Ledger
from harnesspro.evolution.loop import run_evolution
from harnesspro.run.context import RunContext
from harnesspro.run.folder import RunFolder
from tests.conftest import evolve_tiny_in, kill_in_held_out, tiny_config

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
    return evolve_tiny_in(folder, evolution=evolution, evaluation=evaluation)


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


def test_a_resumed_run_confirms_the_journaled_candidates_only(
    tmp_path: Path, ray_session: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed in the held-out evaluation after the confirmation, with the last epoch's
    recorded choice since replaced by another candidate: the resumed run confirms the
    journaled seed and picks again (nothing new to run), never the other candidate."""
    evolution = {"epochs": 1, "rollouts_per_task": 1, "max_survivors": 1, "confirm_attempts": 1}
    evaluation = {"validation_rollouts": 0, "attempts": 1}
    path = tiny_config(tmp_path, coreset={"size": 2}, evolution=evolution, evaluation=evaluation)
    run = RunFolder(tmp_path / "run")
    kill_in_held_out(path, run, monkeypatch)
    ctx = RunContext.open(load_config(path), run, Console(record=True))
    journaled = json.loads(ctx.ledger.journaled(1, "confirmation") or "[]")
    rollouts = ctx.ledger.rollouts()
    coreset = rollouts[rollouts["split"] == "coreset"]
    confirmed = set(coreset[coreset["attempt"] == 1]["candidate_id"])
    assert confirmed == set(journaled) and "c000" in confirmed
    other = next(c for c in ctx.candidates() if c not in confirmed)
    ctx.ledger.record_selection(1, [(m, other, 0.5, 0.01, 0.0) for m in ("lite", "heavy")])
    before = len(rollouts)
    run_evolution(ctx)
    after = ctx.ledger.rollouts()
    assert set(after[(after["attempt"] == 1) & (after["split"] == "coreset")]["candidate_id"]) \
        == confirmed  # fmt: skip
    assert len(after[after["split"] != "test"]) == before
