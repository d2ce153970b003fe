"""Cached tool environments: one venv per pip requirement set, built once and shared.

An environment lives at `<cache>/toolenvs/<key>`, where the key hashes the sorted requirement
set and the interpreter; its modules' bytecode is shared with the other environments through
`<cache>/bytecode` (see `bytecode.py`). It is built in a temporary sibling folder and renamed
into place, so an aborted or concurrent build never leaves a half environment at the key.

In the sandbox it is bound read-only under `/.harnesspro/toolenvs/<key>`, a folder no task
file system binds (the cache may sit under a home folder the agent can write). Its scripts
find their interpreter next to themselves, so they run at either path.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harnesspro.sandbox.contract import Mount
from harnesspro.sandbox.paths import sandbox_path
from harnesspro.tasks.bytecode import compile_shared
from harnesspro.tasks.pytest_grader import PLUGIN_FILE
from harnesspro.tasks.run_commands import canonical_name

PIP_TIMEOUT_S = 1800.0
RUNNER_ROOT = "/.harnesspro"
"""Where the sandbox sees what the runner provides (tool environments, package layers)."""
# Bumped when the on-disk form of an environment changes (v2: relocatable launchers).
ENV_FORMAT = "v2"
# A script that is both sh and Python: sh runs the interpreter beside the script on it;
# Python reads the second line as a string expression and goes on.
LAUNCHER = b'#!/bin/sh\n"exec" "${0%/*}/python" "$0" "$@"\n'


class ToolEnvError(RuntimeError):
    """pip could not build a tool environment; the message names the requirements."""


@dataclass(frozen=True)
class ToolEnv:
    """A ready tool environment and how to expose it read-only in the sandbox."""

    root: Path
    requirements: tuple[str, ...]

    @property
    def target(self) -> str:
        """Where the sandbox sees the environment."""
        return f"{RUNNER_ROOT}/toolenvs/{self.root.name}"

    @property
    def bin(self) -> Path:
        """Its bin folder as the sandbox sees it."""
        return Path(self.target) / "bin"

    def provides(self, command: str) -> bool:
        """The environment has an executable of that name."""
        return os.access(self.root / "bin" / command, os.X_OK)

    def mounts(self) -> list[Mount]:
        return [Mount(self.root, self.target)]

    def path(self) -> str:
        """PATH inside the sandbox with this environment first."""
        return f"{self.bin}:{sandbox_path()}"


def cache_root() -> Path:
    """`$HARNESSPRO_CACHE`, else `~/.cache/harnesspro`."""
    configured = os.environ.get("HARNESSPRO_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "harnesspro"


def normalise(requirements: Sequence[str]) -> tuple[str, ...]:
    """Sorted, de-duplicated requirement strings with canonical project names."""
    out = set()
    for req in requirements:
        name = canonical_name(req)
        out.add(name + req.replace(" ", "")[len(name) :])
    return tuple(sorted(out))


def env_key(requirements: Sequence[str]) -> str:
    """Cache key: the requirement set plus the interpreter the venv is built from (and the
    grader's plugin, in an environment with pytest)."""
    python = f"{platform.python_implementation()}-{sys.version_info[0]}.{sys.version_info[1]}"
    text = "\n".join([ENV_FORMAT, python, platform.machine(), *normalise(requirements)])
    if _has_pytest(requirements):
        text += "\n" + hashlib.sha256(PLUGIN_FILE.read_bytes()).hexdigest()
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _has_pytest(requirements: Sequence[str]) -> bool:
    return any(canonical_name(r) == "pytest" for r in requirements)


def ensure_toolenv(requirements: Sequence[str], cache: Path | None = None) -> ToolEnv:
    """The tool environment for `requirements`, built now if the cache lacks it."""
    reqs = normalise(requirements)
    root = cache or cache_root()
    final = root / "toolenvs" / env_key(reqs)
    if not (final / "bin" / "python").exists():
        final.parent.mkdir(parents=True, exist_ok=True)
        (root / "locks").mkdir(exist_ok=True)
        # One build per key at a time, across processes: the others wait and reuse it (G
        # rollouts of a task on a fresh machine would otherwise each build it).
        with open(root / "locks" / f"toolenv-{final.name}", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if not (final / "bin" / "python").exists():
                _sweep(final.parent)
                _build(reqs, final)
    return ToolEnv(final, reqs)


def _build(reqs: tuple[str, ...], final: Path) -> None:
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=final.parent))
    try:
        base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
        _check([str(base), "-m", "venv", "--without-pip", str(tmp)], reqs)
        if reqs:
            # The host's pip installs into the new venv: no pip copy inside every environment.
            pip = [sys.executable, "-m", "pip", "--python", str(tmp / "bin" / "python")]
            _check([*pip, "install", "--quiet", "--no-compile", *reqs], reqs)
            if _has_pytest(reqs):  # importable whatever PYTHONPATH a test script sets
                site = sysconfig.get_path("purelib", "venv", vars={"base": str(tmp)})
                shutil.copy(PLUGIN_FILE, Path(site) / PLUGIN_FILE.name)
            compile_shared(tmp, final.parent.parent / "bytecode")
        _relocate(tmp, final)
        try:
            tmp.rename(final)
        except OSError:
            if not (final / "bin" / "python").exists():
                raise
            # A concurrent build won the race; its environment is equivalent.
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _sweep(folder: Path) -> None:
    """Delete build folders that a killed build left behind (older than any live build)."""
    cutoff = time.time() - 2 * PIP_TIMEOUT_S
    for leftover in folder.glob(".*-*"):
        if leftover.is_dir() and leftover.stat().st_mtime < cutoff:
            shutil.rmtree(leftover, ignore_errors=True)


def _check(argv: list[str], reqs: tuple[str, ...]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ToolEnvError(f"pip could not install {' '.join(reqs)}: {tail[0]}")


def _relocate(tmp: Path, final: Path) -> None:
    """Give console scripts a launcher that finds the interpreter beside them (they run at
    the host path and at the sandbox's), and point the rest (activate) at the final folder,
    before the rename publishes it."""
    old, new = str(tmp).encode(), str(final).encode()
    shebang = b"#!" + old + b"/bin/python"
    for script in (tmp / "bin").iterdir():
        if not script.is_file() or script.is_symlink():
            continue
        data = script.read_bytes()
        if data.startswith(shebang):
            data = LAUNCHER + data.split(b"\n", 1)[1]
        script.write_bytes(data.replace(old, new))
