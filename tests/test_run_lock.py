"""One process at a time holds a run folder: a second one exits 2 naming the holder's PID."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.run.folder import lock_folder
from tests.conftest import tiny_config, wait_for_file

HOLD = (
    "import sys; from pathlib import Path; from harnesspro.run.folder import lock_folder; "
    "lock_folder(Path(sys.argv[1])); print('locked', flush=True); sys.stdin.read()"
)


def test_second_process_is_refused_and_the_lock_dies_with_the_holder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    config = tiny_config(tmp_path)
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"(PID {holder.pid})" in err and len(err.splitlines()) == 1
    assert sorted(p.name for p in run_dir.iterdir()) == [".lock"]  # nothing else written
    holder.kill()  # as kill -9 would: the kernel releases the lock
    holder.wait()
    lock_folder(run_dir)  # free again


@pytest.mark.slow
def test_two_concurrent_evolves_the_first_completes(tmp_path: Path) -> None:
    # No validation (it would add 27 tasks x G = 2 rollouts the assertions never read): the
    # first run still holds the lock through its Ray start and the seed's coreset rollouts.
    evolution = {"epochs": 0, "rollouts_per_task": 2}
    evaluation = {"final": False, "validation_rollouts": 0}
    config = tiny_config(tmp_path, evaluation=evaluation, evolution=evolution)
    run_dir = tmp_path / "run"
    argv = [sys.executable, "-m", "harnesspro", "evolve", "--config", str(config)]
    argv += ["--run-dir", str(run_dir)]
    first = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_file(run_dir / "ledger.sqlite", first)
    second = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert second.returncode == 2
    assert second.stderr.strip().splitlines() == [
        f"harnesspro: {run_dir} is in use by another harnesspro process (PID {first.pid}); "
        "wait for it to finish, or pass another --run-dir."
    ]
    out, err = first.communicate(timeout=900)
    assert first.returncode == 0, err[-2000:]
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        keys = [k for (k,) in db.execute("SELECT key FROM rollouts")]
        per_candidate = db.execute(
            "SELECT count(*) FROM rollouts WHERE split = 'coreset' GROUP BY candidate_id"
        ).fetchall()
        status = db.execute("SELECT value FROM meta WHERE key = 'status'").fetchone()
    assert len(keys) == len(set(keys))  # nothing ran twice
    assert per_candidate == [(3 * 2,)]  # the seed: 3 coreset tasks x G = 2
    assert status == ("complete",)
