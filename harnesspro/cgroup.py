"""A pids cgroup per sandbox: caps the number of processes (fork bombs) and lets us kill
every process the sandbox started, wherever it went. Linux only; absent -> no-op."""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))  # cgroup v1, then v2


def _usable(root: Path) -> bool:
    return (root / "cgroup.procs").exists() and os.access(root, os.W_OK)


class PidsCgroup:
    """One throwaway cgroup with `pids.max`; `join()` runs in the child before exec."""

    def __init__(self, max_pids: int) -> None:
        self.path: Path | None = None
        for root in ROOTS:
            if not _usable(root):
                continue
            path = root / f"harnesspro-{uuid.uuid4().hex[:12]}"
            try:
                path.mkdir()
                (path / "pids.max").write_text(str(max_pids))
                self.path = path
                return
            except OSError:
                with contextlib.suppress(OSError):
                    path.rmdir()

    def join(self) -> None:
        """Move the calling process into the cgroup (call from preexec_fn)."""
        if self.path is not None:
            (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def pids(self) -> list[int]:
        if self.path is None:
            return []
        with contextlib.suppress(OSError):
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        return []

    def kill_all(self) -> None:
        """SIGKILL everything left in the cgroup and remove it."""
        if self.path is None:
            return
        for _ in range(100):
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
        with contextlib.suppress(OSError):
            self.path.rmdir()
