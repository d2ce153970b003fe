"""The llm test synthesizer on recorded replies: a test that runs is frozen with its verdicts
on the seed's rollouts; one that does not run is sent back once with the error, then given
up with the reason; calls are metered under role `synthesizer`. And `evolution.synthesizer:
llm` end to end offline on the scripted improver."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.core.ledger import Ledger
from harnesspro.core.model_config import ImproverConfig
from harnesspro.execution.gateway.upstream import ReplayUpstream
from harnesspro.improvers.account import SearchAccount
from harnesspro.improvers.inputs import SynthesizerInputs
from harnesspro.improvers.testsynth.llm import ExecTest, passes, synthesize_llm
from harnesspro.run.disclosure import seed_view
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.snapshot import Snapshot
from harnesspro.tasks.loader import load_suite
from tests.conftest import tiny_config

DATA = Path(__file__).parent / "data" / "improver_replay"
RIGHT = Snapshot({"out.txt": b"3\n", "in.txt": b"a\nb\nc\n"})
WRONG = Snapshot({"out.txt": b"4\n", "in.txt": b"a\nb\nc\n"})
INPUTS = SynthesizerInputs(
    "count",
    "Count the lines of `/workspace/in.txt` into `/workspace/out.txt`.",
    "/workspace",
    (seed_view(RIGHT, ""), seed_view(RIGHT, "")),
)


@pytest.fixture
def replay(tmp_path: Path) -> Iterator[tuple[Path, Ledger]]:
    yield tmp_path, Ledger(tmp_path / "ledger.sqlite")


def run(folder: Path, ledger: Ledger, log: str) -> tuple[ExecTest | str, ReplayUpstream]:
    upstream = ReplayUpstream.from_log(DATA / log)
    improver = ImproverConfig(upstream="replay", replay_log=DATA / log)
    with SearchAccount(upstream, improver, None, ledger, 0, folder / "search") as account:
        written = synthesize_llm(INPUTS, [RIGHT, RIGHT], account, Bubblewrap())
    return written, upstream


def test_a_test_that_runs_is_frozen_with_its_seed_verdicts(
    replay: tuple[Path, Ledger],
) -> None:
    written, upstream = run(*replay, "synthesizer_shell.jsonl")
    assert isinstance(written, ExecTest) and written.kind == "shell"
    assert written.seed_verdicts == (True, True)
    assert ExecTest.from_json(written.to_json()) == written
    assert passes(written, RIGHT, Bubblewrap()) and not passes(written, WRONG, Bubblewrap())
    calls = replay[1].search_calls()
    assert list(calls["role"]) == ["synthesizer"]
    request = json.dumps(upstream.requests[0])
    assert "# Role: test synthesizer" in request and "Count the lines" in request


def test_a_test_that_does_not_run_is_retried_once_with_the_error(
    replay: tuple[Path, Ledger],
) -> None:
    written, upstream = run(*replay, "synthesizer_retry.jsonl")
    assert isinstance(written, ExecTest) and written.seed_verdicts == (True, True)
    assert len(upstream.requests) == 2
    retry = upstream.requests[1]["messages"][-1]["content"]
    assert "did not run" in retry and "syntax error" in retry


def test_a_test_that_never_runs_is_given_up_with_the_reason(
    replay: tuple[Path, Ledger],
) -> None:
    written, upstream = run(*replay, "synthesizer_broken.jsonl")
    assert isinstance(written, str) and "after one retry" in written
    assert len(upstream.requests) == 2
    assert list(replay[1].search_calls()["role"]) == ["synthesizer", "synthesizer"]


def test_pytest_tests_run_isolated_in_the_sandbox(replay: tuple[Path, Ledger]) -> None:
    pytest.importorskip("pytest")
    written, _ = run(*replay, "synthesizer_pytest.jsonl")
    assert isinstance(written, ExecTest) and written.kind == "pytest", written
    # A `pytest.py` planted in the working directory does not replace pytest (python -I).
    planted = Snapshot({**WRONG.files, "pytest.py": b"import sys\nsys.exit(0)\n"})
    assert not passes(written, planted, Bubblewrap())
    assert passes(written, RIGHT, Bubblewrap())


@pytest.mark.slow
def test_llm_synthesizer_end_to_end_offline(
    tmp_path: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """`evolution.synthesizer: llm` with the scripted improver: every coreset and validation
    task gets an executable test, frozen, run, metered, unless it cannot fail (then the
    offline checks, with the reason); no official test text is disclosed."""
    evaluation = {"validation_tasks": 2, "validation_rollouts": 1, "final": False}
    evolution = {"epochs": 0, "rollouts_per_task": 2, "synthesizer": "llm"}
    config = tiny_config(tmp_path, evaluation=evaluation, evolution=evolution)
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    frozen = [json.loads(p.read_text()) for p in (run_dir / "synth_tests").glob("*.json")]
    assert len(frozen) == 3 + 2
    # the stand-in writes checks over the paths the instruction quotes; where those are all
    # inputs, its test passes untouched workspaces and is refused (testsynth/gate.py)
    out = capsys.readouterr().out
    offline = {t["task_id"] for t in frozen if t["mode"] == "offline"}
    assert len(offline) <= 1
    assert all(f"llm synthesizer: {t}: its test was refused" in out for t in offline)
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        roles = db.execute("SELECT role, count(*) FROM search_calls GROUP BY role").fetchall()
        ungraded = {
            t
            for (t,) in db.execute(
                "SELECT task_id FROM rollouts WHERE pass IS NULL AND split != 'test'"
            )
        }
    assert roles == [("synthesizer", 5)] and ungraded <= offline  # only an unscorable task's
    assert (run_dir / "reports" / "agreement.json").is_file()
    summary = json.loads((run_dir / "reports" / "synth_tests.json").read_text())
    assert {t["mode"] for t in summary["tests"].values()} <= {"llm", "offline"}
    asked = (run_dir / "search" / "epoch-0" / "calls.jsonl").read_text()
    tasks = {t.id: t for t in load_suite("builtin")}
    for name in summary["tests"]:
        official = (tasks[name].path / "tests" / "test.sh").read_text()
        secret = [line for line in official.splitlines() if len(line.strip()) > 40]
        assert not any(line in asked for line in secret), name
