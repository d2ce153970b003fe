"""scripts/crash_equivalence.py on a small run: one kill -9 aimed at each phase (rollouts,
improve, git, selection, reports, held-out), each followed by a resume; the final ledger
equals an uninterrupted run's. The runs join the test worker's Ray (RAY_ADDRESS), as on a
cluster: a kill ends the run's driver and Ray ends the tasks it owned."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "crash_equivalence.py"
PHASES = ("rollouts", "improve", "git", "selection", "reports", "held-out")


@pytest.mark.slow
def test_kills_in_every_phase_resume_to_the_uninterrupted_ledger(
    tmp_path: Path, ray_env: dict[str, str]
) -> None:
    argv = [sys.executable, str(SCRIPT), "--kills", "6", "--small", "--workdir", str(tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1200, env=ray_env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summary = re.search(r"N = (\d+) kills over \d+ rounds \((.*)\)", done.stdout)
    assert summary, done.stdout
    per_phase = dict(
        (name, int(count)) for name, count in re.findall(r"([\w-]+) (\d+)", summary.group(2))
    )
    assert int(summary.group(1)) >= 6 and sum(per_phase.values()) == int(summary.group(1))
    assert all(per_phase.get(phase, 0) >= 1 for phase in PHASES), per_phase
    assert "mismatching tables: 0" in done.stdout
