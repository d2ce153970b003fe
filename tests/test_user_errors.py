"""Every failure a user can cause ends in one sentence and exit 2, with nothing half-written."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.tasks import verify
from harnesspro.tasks.loader import builtin_suite_dir
from harnesspro.tasks.toolenv import ToolEnvError
from tests.conftest import harbor_task, start_evolve, tiny_config, wait_for_file


def fails_in_one_sentence(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the CLI; it must exit 2 with one line on stderr and no traceback."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("harnesspro: "), err
    assert "Traceback" not in err
    return err


def test_negative_price(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tiny_config(tmp_path, prices={"scripted": {"input": -1.0, "output": 10.0}})
    run_dir = tmp_path / "run"
    err = fails_in_one_sentence(
        ["evolve", "--config", str(config), "--run-dir", str(run_dir)], capsys
    )
    assert "prices.scripted.input" in err and not run_dir.exists()


def test_empty_suite_leaves_no_run_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "suite").mkdir()
    config = tiny_config(tmp_path, tasks={"suite": str(tmp_path / "suite")})
    run_dir = tmp_path / "run"
    err = fails_in_one_sentence(
        ["evolve", "--config", str(config), "--run-dir", str(run_dir)], capsys
    )
    assert "tasks.suite" in err and "0 loadable tasks" in err
    assert not run_dir.exists()


def test_run_dir_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tiny_config(tmp_path)
    (tmp_path / "file").write_text("x")
    err = fails_in_one_sentence(
        ["evolve", "--config", str(config), "--run-dir", str(tmp_path / "file")], capsys
    )
    assert "is a file" in err and "--run-dir" in err


@pytest.fixture
def unwritable(tmp_path: Path) -> Iterator[Path]:
    """A folder this process cannot write: sysfs when root (permissions do not bind root)."""
    if os.geteuid() == 0:
        yield Path("/sys/kernel")
        return
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)


def test_unwritable_run_folder(
    tmp_path: Path, unwritable: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tiny_config(tmp_path)
    err = fails_in_one_sentence(
        ["evolve", "--config", str(config), "--run-dir", str(unwritable)], capsys
    )
    assert f"{unwritable}: cannot create or write the run folder" in err


def test_config_that_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = fails_in_one_sentence(["evolve", "--config", str(tmp_path)], capsys)
    assert f"{tmp_path}: is a directory" in err


def unpriced_config(folder: Path, allow: bool) -> Path:
    path = folder / "unpriced.yaml"
    model = {"name": "mystery-model", "upstream": "scripted", "allow_unpriced": allow}
    path.write_text(json.dumps({"name": "unpriced", "model": model}))
    return path


def test_rollout_command_honours_allow_unpriced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    harness, task = (
        str(Path("harnesspro/harness/seed").resolve()),
        builtin_suite_dir() / "sales_by_region",
    )
    argv = ["rollout", "--harness", harness, "--task", str(task), "--out", str(tmp_path / "out")]
    refused = argv + ["--config", str(unpriced_config(tmp_path, allow=False))]
    assert "mystery-model" in fails_in_one_sentence(refused, capsys)
    allowed = argv + ["--config", str(unpriced_config(tmp_path, allow=True))]
    assert main(allowed) in (0, 1)  # ran: 0 or 1 is the rollout's status, not a refusal
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["model_calls"] > 0 and summary["cost"] is None  # unknown, never 0


@pytest.mark.slow
def test_changed_frozen_test_is_one_sentence(tmp_path: Path, ray_env: dict[str, str]) -> None:
    config = tiny_config(tmp_path, evaluation={"final": False})
    run_dir = tmp_path / "run"
    argv, first = start_evolve(config, run_dir, ray_env)
    frozen = run_dir / "synth_tests"
    wait_for_file(frozen, first)
    while not any(frozen.glob("*.json")):  # the folder comes before its first test
        assert first.poll() is None, "the run ended before freezing a test"
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)  # kill -9 the run (Ray ends the tasks it owned)
    first.wait()
    victim = sorted(frozen.glob("*.json"))[0]
    test = json.loads(victim.read_text())
    victim.write_text(json.dumps({**test, "task_id": test["task_id"] + "-edited"}))
    second = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=ray_env)
    assert second.returncode == 2
    assert second.stderr.strip().splitlines() == [
        f"harnesspro: {victim}: changed after it was frozen; restore it, or start a new run folder."
    ]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MB tmpfs: the run fills it part-way through; needs root to mount."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)])
    if done.returncode != 0:
        pytest.skip("this machine does not allow mounting a tmpfs")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=True)


@pytest.mark.slow
def test_full_disk_is_one_sentence_and_resumable(
    tmp_path: Path, small_disk: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    evaluation = {"final": False, "validation_tasks": 1, "validation_rollouts": 1}
    evolution = {"epochs": 0, "rollouts_per_task": 2}
    config = tiny_config(tmp_path, evaluation=evaluation, evolution=evolution)
    run_dir = small_disk / "run"
    argv = ["evolve", "--config", str(config), "--run-dir", str(run_dir)]
    err = fails_in_one_sentence(argv, capsys)
    assert "no space left" in err
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        kept = {k for (k,) in db.execute("SELECT key FROM rollouts")}
    for key in kept:  # every rollout in the ledger has its artifacts
        assert (run_dir / "rollouts" / key / "trajectory.jsonl").is_file()
    subprocess.run(["mount", "-o", "remount,size=200m", str(small_disk)], check=True)
    assert main(argv) == 0
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        keys = [k for (k,) in db.execute("SELECT key FROM rollouts")]
        (coreset,) = db.execute("SELECT count(*) FROM rollouts WHERE split = 'coreset'").fetchone()
    assert kept <= set(keys) and len(keys) == len(set(keys)) and coreset == 3 * 2


def test_a_tool_environment_pip_cannot_build_is_one_line_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # pip failing to build the task's tool environment (here: made to fail without a network
    # round trip) is reported as the task's validation error, in one line.
    folder = harbor_task(tmp_path, "FROM python:3.11\nWORKDIR /app\nRUN pip install no-such-tool\n")

    def refuse(requirements: list[str], cache: Path | None = None) -> None:
        raise ToolEnvError(f"pip could not install {' '.join(requirements)}: no matching version")

    monkeypatch.setattr(verify, "ensure_toolenv", refuse)
    assert main(["tasks", "validate", str(folder)]) == 1  # a broken task, not a crash
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    lines = [line for line in out.out.splitlines() if "pip could not install" in line]
    assert len(lines) == 1 and lines[0].startswith("error") and "no-such-tool" in lines[0]


SIGTERMED_COMMAND = """
import sys, time
from pathlib import Path
import harnesspro.cli as cli

marks = Path(sys.argv[1])

def holds_a_server(args, console):
    try:
        marks.write_text("started\\n")
        time.sleep(60)
        return 0
    finally:
        marks.write_text(marks.read_text() + "stopped\\n")

top, handlers = cli.parser()
cli.parser = lambda: (top, {**handlers, "doctor": holds_a_server})
sys.exit(cli.main(["doctor"]))
"""


def test_sigterm_unwinds_the_command_so_its_servers_stop(tmp_path: Path) -> None:
    """A command killed with SIGTERM (a scheduler's stop, `timeout`, `kill`) runs its `finally`
    blocks, which stop the llama.cpp server and Ray it started, and says so in one line."""
    marks = tmp_path / "marks"
    proc = subprocess.Popen(
        [sys.executable, "-c", SIGTERMED_COMMAND, str(marks)],
        stderr=subprocess.PIPE,
        text=True,
    )
    while not marks.exists():
        assert proc.poll() is None, "the command ended before it started"
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    assert marks.read_text().splitlines() == ["started", "stopped"]
    assert err.strip().count("\n") == 0 and "terminated (SIGTERM)" in err
