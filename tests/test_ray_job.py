"""`ray job submit` end to end: a head on loopback, a tiny run shipped with --working-dir, the
run folder and reports where the README says, and a resubmission that resumes."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import free_port

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent  # the job's `python` must be this venv's
RUN = [
    "python", "-m", "harnesspro.evolve", "--config", "configs/quickstart.yaml",
    "--set", "name=jobtest", "--set", "tasks.manifest=null", "--set", "coreset.size=2",
    "--set", "evolution.epochs=0", "--set", "evolution.rollouts_per_task=1",
    "--set", "evaluation.final=false", "--set", "evaluation.validation_rollouts=0",
]  # fmt: skip


NO_AGENT = "No available agent to submit job"


@dataclass(frozen=True)
class Head:
    address: str
    env: dict[str, str]
    home: Path

    def ray(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """A `ray` CLI call against this head."""
        argv = [str(VENV_BIN / "ray"), *args]
        return subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=timeout)

    def without_token_mode(self) -> subprocess.CompletedProcess[str]:
        """`ray job list` from a shell that lacks RAY_AUTH_MODE=token (the README's pitfall)."""
        env = {k: v for k, v in self.env.items() if k != "RAY_AUTH_MODE"}
        argv = [str(VENV_BIN / "ray"), "job", "list", "--address", self.address]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)

    def submit(self) -> str:
        """Submit the tiny run from the repository, wait for it, return its log. The head
        answers `ray job list` before its node's job agent has registered; until then a
        submission is refused with Ray's "No available agent to submit job, please try again
        later" (no job is created), so that refusal is retried, for up to 180 s."""
        deadline = time.monotonic() + 180
        while True:
            done = self.ray(
                "job", "submit", "--address", self.address, "--working-dir", str(REPO), "--",
                *RUN, timeout=900,
            )  # fmt: skip
            not_yet = NO_AGENT in done.stdout + done.stderr
            if done.returncode == 0 or not not_yet or time.monotonic() > deadline:
                break
            time.sleep(2)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "succeeded" in done.stdout.lower(), done.stdout[-3000:]
        return done.stdout


def stop(process: subprocess.Popen[bytes], temp: Path) -> None:
    """Stop the head and everything it started: its process group, then any process still
    naming its private temp dir (ours alone), by pid."""
    # A blocked `ray start` often outlives SIGTERM for long: a short grace, then SIGKILL.
    for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(wait)
            break
        except subprocess.TimeoutExpired:
            continue
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(temp).encode() in (entry / "cmdline").read_bytes():
                os.kill(int(entry.name), signal.SIGKILL)
        except OSError:
            pass  # gone meanwhile


@pytest.fixture
def head() -> Iterator[Head]:
    """A one-node Ray head on 127.0.0.1 with its own ports, temp dir and HOME (its auth token and
    the job's run folders stay inside the test), stopped afterwards, failed or not."""
    root = Path(tempfile.mkdtemp(prefix="hp-job-", dir="/tmp"))
    home, temp = root / "home", root / "r"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "PATH": f"{VENV_BIN}:{os.environ['PATH']}",
        "RAY_AUTH_MODE": "token",  # what the README asks for once a token exists
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    env.pop("RAY_ADDRESS", None)
    dashboard = free_port()
    ports = {
        "--port": free_port(),
        "--dashboard-port": dashboard,
        "--dashboard-agent-listen-port": free_port(),
        "--dashboard-agent-grpc-port": free_port(),
        "--ray-client-server-port": free_port(),
        "--runtime-env-agent-port": free_port(),
        "--metrics-export-port": free_port(),
    }
    subprocess.run([str(VENV_BIN / "ray"), "get-auth-token", "--generate"], env=env, check=True,
                   capture_output=True)  # fmt: skip
    argv = [str(VENV_BIN / "ray"), "start", "--head", "--block", "--num-cpus", "2",
            "--node-ip-address", "127.0.0.1", "--dashboard-host", "127.0.0.1",
            "--temp-dir", str(temp), "--disable-usage-stats"]  # fmt: skip
    argv += [str(part) for item in ports.items() for part in item]
    log = (root / "head.log").open("wb")
    process = subprocess.Popen(argv, env=env, stdout=log, stderr=log, start_new_session=True)
    ready = Head(f"http://127.0.0.1:{dashboard}", env, home)
    try:
        deadline = time.monotonic() + 180
        while ready.ray("job", "list", "--address", ready.address).returncode != 0:
            assert process.poll() is None, (root / "head.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the Ray head did not come up in 180 s"
            time.sleep(2)
        yield ready
    finally:
        stop(process, temp)
        log.close()
        shutil.rmtree(root, ignore_errors=True)


def rollout_rows(run_dir: Path) -> list[tuple[str, float]]:
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        return list(db.execute("SELECT key, created FROM rollouts ORDER BY key"))


@pytest.mark.slow
def test_ray_job_submit_runs_and_resumes(head: Head) -> None:
    first = head.submit()
    found = re.search(r"run folder: (\S+)", first)
    assert found, first[-3000:]
    run_dir = Path(found.group(1))
    # The README: inside a job the run folder is ~/harnesspro/runs/<name>-<hash> on the driver.
    assert run_dir.parent == head.home / "harnesspro" / "runs"
    assert run_dir.name.startswith("jobtest-")
    assert (run_dir / "reports" / "epoch-0" / "pareto.html").is_file()
    assert (run_dir / "reports" / "epoch-0" / "costs.csv").is_file()
    rows = rollout_rows(run_dir)
    assert len(rows) == 2  # 2 coreset tasks x G = 1
    assert all((run_dir / "rollouts" / key / "trajectory.jsonl").is_file() for key, _ in rows)

    # The head found a token, so it requires one: a shell without RAY_AUTH_MODE=token is refused.
    pitfall = head.without_token_mode()
    assert pitfall.returncode != 0 and "Missing authentication token" in pitfall.stderr

    again = head.submit()
    assert f"run folder: {run_dir}" in again
    assert "this run is complete" in again
    assert rollout_rows(run_dir) == rows  # resumed: no rollout ran or was rewritten
