"""Bubblewrap sandbox: read-only system, explicit writable mounts, no network, killable."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

OUTPUT_CAP = 1_000_000  # bytes of stdout/stderr kept per process
SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32")


class SandboxUnavailable(RuntimeError):
    """The sandbox backend cannot run on this machine (an infrastructure fault)."""


@dataclass(frozen=True)
class Mount:
    source: Path
    target: str
    writable: bool = False


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int | None
    timed_out: bool
    stdout: str
    stderr: str
    wall_s: float


class Sandbox(Protocol):
    def run(
        self,
        argv: Sequence[str],
        mounts: Sequence[Mount],
        env: Mapping[str, str],
        cwd: str,
        timeout_s: float,
    ) -> SandboxResult: ...


def python_dirs() -> list[Path]:
    """Interpreter prefixes to expose read-only, so `{python}` runs inside the sandbox."""
    return sorted({Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()})


def sandbox_path() -> str:
    """PATH inside the sandbox: harnesspro's interpreter first, then the system."""
    return f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"


def _system_args() -> list[str]:
    args: list[str] = []
    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.exists():
            args += ["--ro-bind", name, name]
    for prefix in python_dirs():
        args += ["--ro-bind", str(prefix), str(prefix)]
    return args


def bwrap_argv(
    argv: Sequence[str], mounts: Sequence[Mount], env: Mapping[str, str], cwd: str
) -> list[str]:
    """The full bubblewrap command line; the host environment is never inherited."""
    args = ["bwrap", "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL"]
    # Empty /tmp and /run first: the interpreter (a venv under /tmp, say) is bound after them.
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run"]
    args += _system_args()
    for mount in mounts:
        args += ["--bind" if mount.writable else "--ro-bind", str(mount.source), mount.target]
    args += ["--clearenv", "--chdir", cwd]
    for key, value in {"PATH": sandbox_path(), "HOME": "/tmp", "LANG": "C.UTF-8", **env}.items():
        args += ["--setenv", key, value]
    return [*args, "--", *argv]


def _read_capped(path: Path) -> str:
    with path.open("rb") as handle:
        data = handle.read(OUTPUT_CAP)
    return data.decode("utf-8", errors="replace")


def _limit_memory(limit_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))


class Bubblewrap:
    """Runs commands under bubblewrap with the process group killed on timeout."""

    def __init__(self, memory_mb: int = 4096) -> None:
        if shutil.which("bwrap") is None:
            raise SandboxUnavailable(
                "bubblewrap (bwrap) is not installed; install it with "
                "`apt-get install -y bubblewrap` (or run `make quickstart` as root)."
            )
        self.memory_bytes = memory_mb * 1024 * 1024

    def run(
        self,
        argv: Sequence[str],
        mounts: Sequence[Mount],
        env: Mapping[str, str],
        cwd: str,
        timeout_s: float,
    ) -> SandboxResult:
        command = bwrap_argv(argv, mounts, env, cwd)
        with tempfile.TemporaryDirectory(prefix="hp-sbx-") as tmp:
            out_path, err_path = Path(tmp, "stdout"), Path(tmp, "stderr")
            with out_path.open("wb") as out, err_path.open("wb") as err:
                started = time.monotonic()
                proc = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                    preexec_fn=lambda: _limit_memory(self.memory_bytes),
                )
                timed_out = False
                try:
                    proc.wait(timeout=timeout_s)
                except subprocess.TimeoutExpired:
                    timed_out = True
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                wall = time.monotonic() - started
            return SandboxResult(
                exit_code=None if timed_out else proc.returncode,
                timed_out=timed_out,
                stdout=_read_capped(out_path),
                stderr=_read_capped(err_path),
                wall_s=wall,
            )
