"""`harnesspro eval RUN --config FILE | --set model.KEY=VALUE`: the held-out evaluation of a
finished run re-run on another model, written beside the run's reports, never over them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.core.ledger import Ledger


@pytest.fixture
def run_copy(finished_tiny_run: Path, tmp_path: Path) -> Path:
    """A copy of the shared tiny run: a transfer writes into RUN/transfers/."""
    copy = tmp_path / "run"
    shutil.copytree(finished_tiny_run, copy, symlinks=True, ignore=shutil.ignore_patterns("lock"))
    return copy


def test_a_transfer_writes_its_report_beside_the_runs_own(
    run_copy: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    final = run_copy / "reports" / "final.json"
    before, test_rollouts = final.read_text(), _test_rollouts(run_copy)
    assert main(["eval", str(run_copy), "--set", "model.behaviour.seed=3", "--name", "s3"]) == 0
    assert final.read_text() == before  # the run's own report is untouched
    assert _test_rollouts(run_copy) == test_rollouts  # and so is its ledger
    folder = run_copy / "transfers" / "s3"
    report = json.loads((folder / "reports" / "final.json").read_text())
    original = json.loads(before)
    assert [h["candidate_id"] for h in report["harnesses"]] == [
        h["candidate_id"] for h in original["harnesses"]
    ]
    assert report["tasks"] == original["tasks"] and report["attempts"] == original["attempts"]
    decision = json.loads((folder / "reports" / "decision.json").read_text())
    assert decision["pass_curves"] and decision["optimism"] == []  # no search in a transfer
    out = capsys.readouterr().out
    assert "transfer: held-out pass rate on the run's model -> on this one" in out
    # the same command again resumes: nothing new runs
    rollouts = _test_rollouts(folder)
    assert main(["eval", str(run_copy), "--set", "model.behaviour.seed=3", "--name", "s3"]) == 0
    assert _test_rollouts(folder) == rollouts


def _test_rollouts(run: Path) -> int:
    ledger = Ledger(run / "ledger.sqlite")
    try:
        return int((ledger.rollouts()["split"] == "test").sum())
    finally:
        ledger.close()


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--set", "evaluation.attempts=2"], "a transfer changes only the model"),
        (["--config", "missing.yaml"], "missing.yaml: no such config file"),
        (["--set", "model.behaviour.bogus=1"], "model.behaviour.bogus"),
        (["--name", "x"], "--name names a transfer folder"),
    ],
)
def test_bad_transfer_input_is_one_sentence_and_exit_2(
    run_copy: Path, extra: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(run_copy), *extra]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and err.count("\n") == 1


def test_the_runs_own_model_is_no_transfer(
    run_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(run_copy), "--config", str(run_copy / "config.yaml")]) == 2
    assert "the transfer config's model and prices are the run's own" in capsys.readouterr().err
