"""One throwaway cgroup per sandbox: caps its processes (fork bombs) and its memory (all
processes together, its tmpfs /tmp included), and lets us kill every process the sandbox
started, wherever it went. Linux only; a controller we cannot write is reported, not fatal.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

V1 = Path("/sys/fs/cgroup")
V2 = Path("/sys/fs/cgroup")


def _usable(root: Path) -> bool:
    return (root / "cgroup.procs").exists() and os.access(root, os.W_OK)


def _make(root: Path, settings: dict[str, str]) -> Path | None:
    """A new child cgroup of `root` with `settings` written, or None if that fails."""
    if not _usable(root):
        return None
    path = root / f"harnesspro-{uuid.uuid4().hex[:12]}"
    try:
        path.mkdir()
        for name, value in settings.items():
            (path / name).write_text(value)
        return path
    except OSError:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None


def _v2_has(controller: str) -> bool:
    controllers = V2 / "cgroup.subtree_control"
    with contextlib.suppress(OSError):
        return controller in controllers.read_text().split()
    return False


class SandboxCgroup:
    """`pids.max` and a memory cap over every process of one sandbox, joined by the sandbox's
    first process before its command starts. cgroup v1 (one folder per controller) or v2."""

    def __init__(self, max_pids: int, memory_bytes: int | None = None) -> None:
        self.paths: list[Path] = []
        self.memory: Path | None = None
        self.pids_capped = False
        pids = {"pids.max": str(max_pids)}
        if (V1 / "pids" / "cgroup.procs").exists():  # v1: one hierarchy per controller
            self._add(_make(V1 / "pids", pids), pids=True)
            if memory_bytes:
                # memsw (memory + swap) when the kernel accounts swap: no escape into swap.
                limit = {"memory.limit_in_bytes": str(memory_bytes)}
                path = _make(V1 / "memory", limit)
                if path is not None and (path / "memory.memsw.limit_in_bytes").exists():
                    with contextlib.suppress(OSError):
                        (path / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
                self._add(path, memory=True)
            return
        settings = dict(pids) if _v2_has("pids") else {}
        if memory_bytes and _v2_has("memory"):
            settings |= {"memory.max": str(memory_bytes), "memory.swap.max": "0"}
        path = _make(V2, settings) if settings else None
        self._add(path, pids="pids.max" in settings, memory="memory.max" in settings)

    def _add(self, path: Path | None, pids: bool = False, memory: bool = False) -> None:
        if path is None:
            return
        self.paths.append(path)
        self.pids_capped = self.pids_capped or pids
        if memory:
            self.memory = path

    def join(self, pid: int) -> None:
        """Move process `pid` into the cgroups (before it runs anything of the command's)."""
        for path in self.paths:
            (path / "cgroup.procs").write_text(str(pid))

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.paths:
            with contextlib.suppress(OSError):
                found |= {int(p) for p in (path / "cgroup.procs").read_text().split()}
        return sorted(found)

    def peak_memory(self) -> int | None:
        """The most memory the sandbox's processes held at once (bytes), when measured."""
        if self.memory is None:
            return None
        for name in ("memory.max_usage_in_bytes", "memory.peak"):
            with contextlib.suppress(OSError, ValueError):
                return int((self.memory / name).read_text())
        return None

    def kill_all(self) -> None:
        """SIGKILL everything left in the cgroups and remove them."""
        for _ in range(100):
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
        for path in self.paths:
            with contextlib.suppress(OSError):
                path.rmdir()


def unenforced_limits() -> list[str]:
    """One sentence per sandbox limit this machine cannot enforce (empty when all hold)."""
    probe = SandboxCgroup(64, 64 * 1024 * 1024)
    probe.kill_all()
    notes = []
    if not probe.pids_capped:
        notes.append(
            "no writable pids cgroup: the sandbox's process cap (fork bombs) is not enforced"
        )
    if probe.memory is None:
        notes.append(
            "no writable memory cgroup: memory_mb caps each process's address space and the "
            "sandbox's /tmp, not the sandbox as a whole (several processes can use more)"
        )
    return notes
