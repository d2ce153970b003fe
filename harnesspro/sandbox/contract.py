"""What every sandbox backend offers: mounts, limits, the result of a run, the protocol, and
how paths inside map to the host."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


class SandboxUnavailable(RuntimeError):
    """The sandbox backend cannot run on this machine (an infrastructure fault)."""


@dataclass(frozen=True)
class Mount:
    source: os.PathLike[str] | str
    target: str
    writable: bool = False


@dataclass(frozen=True)
class Limits:
    memory_mb: int = 4096
    """Memory of the whole sandbox (all its processes and its /tmp) when a memory cgroup can
    be made; always also the address-space cap of each process and the size of /tmp."""
    max_pids: int = 512
    """Processes alive at once (needs a writable pids cgroup; stops fork bombs)."""
    output_keep: int = 1_000_000
    """Bytes of stdout and of stderr kept."""
    output_max: int = 64_000_000
    """Bytes of stdout + stderr after which the run is killed as a harness error."""
    max_file_mb: int = 1024
    """Largest file any sandboxed process may write (RLIMIT_FSIZE, /tmp included): a write
    past it fails (EFBIG, or SIGXFSZ kills the writer). Per file, not a quota over all."""


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int | None
    timed_out: bool
    stdout: str
    stderr: str
    wall_s: float
    reason: str = ""
    """Why the sandbox stopped the run early ('' when it ended by itself)."""
    peak_memory: int | None = None
    """Most bytes the sandbox's processes held at once (None: no memory cgroup to measure)."""


class Sandbox(Protocol):
    def run(
        self,
        argv: Sequence[str],
        mounts: Sequence[Mount],
        env: Mapping[str, str],
        cwd: str,
        timeout_s: float,
    ) -> SandboxResult: ...

    def visible_path(self, mounts: Sequence[Mount], target: str) -> str:
        """Where a mounted path is seen by the sandboxed process."""
        ...


def mounted_source(mounts: Sequence[Mount], path: str) -> str | None:
    """The host path behind `path` inside a sandbox with `mounts` (the innermost mount that
    covers it), or None when no mount does."""
    for mount in sorted(mounts, key=lambda m: len(m.target), reverse=True):
        target = mount.target.rstrip("/")
        if path == target or path.startswith(target + "/"):
            return str(mount.source) + path[len(target) :]
    return None


def map_paths(text: str, mounts: Sequence[Mount]) -> str:
    """`text` with every mount target used as a path (not inside a longer path) replaced by
    its host source, longest target first, in one pass."""
    moved = {m.target.rstrip("/"): str(m.source) for m in mounts if str(m.source) != m.target}
    if not moved:
        return text
    names = "|".join(re.escape(t) for t in sorted(moved, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w./-])({names})(?![\w.-])")
    return pattern.sub(lambda m: moved[m.group(1)], text)
