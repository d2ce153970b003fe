"""Limits per sandbox, not per process: memory over all processes (and /tmp), snapshot size."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.cgroup import SandboxCgroup
from harnesspro.sandbox.contract import Limits
from harnesspro.sandbox.process import run_limited
from harnesspro.sandbox.snapshot import take

GIB = 1024**3
# Three processes each touching 1.5 GiB: under a 2 GiB per-process address-space cap each
# would succeed alone, so only a cap over the whole sandbox stops them.
HOG = """
import subprocess, sys, time
code = ("b = bytearray(3 * 2**29); b[::4096] = b'x' * len(b[::4096]); "
        "print('held', flush=True); __import__('time').sleep(3)")
procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(3)]
print("exits", [p.wait() for p in procs], flush=True)
"""


def memory_cgroup_available() -> bool:
    probe = SandboxCgroup(16, 64 * 1024 * 1024)
    probe.kill_all()
    return probe.memory is not None


@pytest.mark.skipif(not memory_cgroup_available(), reason="no writable memory cgroup here")
def test_three_processes_of_1_5_gib_are_held_to_a_2_gib_sandbox(tmp_path: Path) -> None:
    result = Bubblewrap(Limits(memory_mb=2048)).run(
        [sys.executable, "-c", HOG], [], {}, "/tmp", 120
    )
    assert result.peak_memory is not None
    # Measured: the sandbox never held more than its cap (the three would need 4.5 GiB).
    assert result.peak_memory <= 2 * GIB
    assert result.stdout.count("held") < 3 or "exits [0, 0, 0]" not in result.stdout


@pytest.mark.skipif(not memory_cgroup_available(), reason="no writable memory cgroup here")
def test_the_sandbox_tmp_counts_against_its_memory() -> None:
    fill = "dd if=/dev/zero of=/tmp/fill bs=1M count=400 status=none; echo rc=$?"
    result = Bubblewrap(Limits(memory_mb=256)).run(["bash", "-c", fill], [], {}, "/tmp", 60)
    assert "rc=0" not in result.stdout  # 400 MB of /tmp does not fit in 256 MB


def test_snapshot_is_capped_in_total(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"f{i}.bin").write_bytes(b"x" * 100)
    kept = take(tmp_path, total_cap=250).files
    assert sorted(kept) == ["f0.bin", "f1.bin"]  # 200 bytes; a third file would pass 250


def test_a_command_starts_inside_its_cgroup_and_rlimits(tmp_path: Path) -> None:
    # Its first instruction already sees the sandbox's cgroup and the limits: the parent
    # confines the gated process before it becomes the command.
    probe = SandboxCgroup(16, None)
    probe.kill_all()
    if not probe.paths:
        pytest.skip("no writable cgroup here")
    limits = Limits(memory_mb=300, max_file_mb=7)
    show = "cat /proc/self/cgroup; grep -E 'address space|file size' /proc/self/limits"
    result = run_limited(["/bin/sh", "-c", show], None, str(tmp_path), 30, limits)
    assert result.exit_code == 0, result.stderr
    assert "harnesspro-" in result.stdout  # a throwaway cgroup of ours, not the test's own
    assert f"{300 * 1024 * 1024}" in result.stdout and f"{7 * 1024 * 1024}" in result.stdout


def test_a_command_that_cannot_be_confined_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: SandboxCgroup, pid: int) -> None:
        raise PermissionError("cgroup.procs: permission denied")

    monkeypatch.setattr(SandboxCgroup, "join", refuse)
    marker = tmp_path / "ran"
    with pytest.raises(PermissionError):
        run_limited(["/bin/sh", "-c", f"touch {marker}"], None, str(tmp_path), 30, Limits())
    assert not marker.exists()
