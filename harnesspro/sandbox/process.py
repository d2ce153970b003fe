"""Running a command under limits: its output captured up to a cap, its own cgroup and rlimits,
a wall-clock timeout that kills every process it started."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO

from harnesspro.sandbox.cgroup import SandboxCgroup
from harnesspro.sandbox.contract import (
    Limits,
    SandboxResult,
)


class _Capture:
    """Drains a pipe, keeping the first `keep` bytes and counting the rest."""

    def __init__(self, pipe: IO[bytes], keep: int) -> None:
        self.kept = bytearray()
        self.total = 0
        self._thread = threading.Thread(target=self._drain, args=(pipe, keep), daemon=True)
        self._thread.start()

    def _drain(self, pipe: IO[bytes], keep: int) -> None:
        while chunk := pipe.read(65536):
            self.total += len(chunk)
            if len(self.kept) < keep:
                self.kept += chunk[: keep - len(self.kept)]

    def text(self) -> str:
        self._thread.join(timeout=5)
        return self.kept.decode("utf-8", errors="replace")


GATE = ("/bin/sh", "-c", 'read -r _ && exec "$@" </dev/null', "gate")
"""The command behind a gate: a shell that waits for a line on its stdin, then becomes the
command. Meanwhile the parent puts it in its cgroups and sets its rlimits, so nothing of the
command runs outside them, and no `preexec_fn` is needed: Python then spawns with vfork
instead of fork, which copies the parent's page tables (~25 ms a spawn from a Ray worker
against ~2 ms) and is not safe in a process with threads."""


def _confine(pid: int, cgroup: SandboxCgroup, limits: Limits) -> None:
    cgroup.join(pid)
    memory_bytes = limits.memory_mb * 1024 * 1024
    file_bytes = limits.max_file_mb * 1024 * 1024
    resource.prlimit(pid, resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (file_bytes, file_bytes))


def _open_gate(proc: subprocess.Popen[bytes], cgroup: SandboxCgroup, limits: Limits) -> None:
    """Confine the gated process, then let it run its command; if it cannot be confined it
    is killed before the command starts, and the error raised."""
    assert proc.stdin is not None
    try:
        _confine(proc.pid, cgroup, limits)
    except OSError:
        _kill(proc)
        proc.communicate()
        cgroup.kill_all()  # and removes it
        raise
    with contextlib.suppress(BrokenPipeError):  # gone already: its exit status says why
        proc.stdin.write(b"go\n")
        proc.stdin.close()


def run_limited(
    command: Sequence[str],
    env: Mapping[str, str] | None,
    cwd: str | None,
    timeout_s: float,
    limits: Limits,
) -> SandboxResult:
    """Run a command in its own session and cgroup, enforcing every limit."""
    cgroup = SandboxCgroup(limits.max_pids, limits.memory_mb * 1024 * 1024)
    started = time.monotonic()
    proc = subprocess.Popen(
        [*GATE, *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        start_new_session=True,
    )
    _open_gate(proc, cgroup, limits)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Capture(proc.stdout, limits.output_keep), _Capture(proc.stderr, limits.output_keep)
    reason = ""
    while proc.poll() is None and not reason:
        if time.monotonic() - started > timeout_s:
            reason = f"timed out after {timeout_s:g} s"
        elif out.total + err.total > limits.output_max:
            reason = f"printed more than {limits.output_max:,} bytes"
        else:
            time.sleep(0.005)
    if reason:
        _kill(proc)
    peak = cgroup.peak_memory()
    cgroup.kill_all()
    proc.wait()
    return SandboxResult(
        exit_code=None if reason else proc.returncode,
        timed_out=reason.startswith("timed out"),
        stdout=out.text(),
        stderr=err.text(),
        wall_s=time.monotonic() - started,
        reason=reason,
        peak_memory=peak,
    )


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
