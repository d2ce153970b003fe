"""Sandboxes for harness and test processes.

`Bubblewrap`: read-only system, only the given mounts writable, no network, own PID
namespace, host environment not inherited, never root (`harnesspro.sandbox.user`), memory,
process and file-size caps, output cap, and a wall-clock timeout that kills every process the
sandbox started. `Local`: the same
interface with no isolation at all, for machines without bubblewrap; it warns loudly.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from harnesspro.sandbox.cgroup import SandboxCgroup
from harnesspro.sandbox.user import (
    Binds,
    guard_mounts,
    hand_over,
    let_read,
    root_setup,
    sandbox_uid,
    setpriv_path,
    switch_command,
)

SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32")


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


def python_dirs() -> list[str]:
    """Interpreter prefixes to expose read-only, so `{python}` runs inside the sandbox."""
    return sorted({os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)})


def sandbox_path() -> str:
    """PATH inside the sandbox: harnesspro's interpreter first, then the system."""
    return f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin"


def _system_args(binds: Binds) -> None:
    for name in SYSTEM_DIRS:
        if os.path.islink(name):
            binds.args += ["--symlink", os.readlink(name), name]
        elif os.path.exists(name):
            binds.add("--ro-bind", name, name)
    for prefix in python_dirs():
        binds.add("--ro-bind", prefix, prefix)
    # An installed (non-editable) harnesspro sits inside the interpreter prefix, with the
    # built-in tasks' tests and reference solutions: hide the whole package.
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    if any(package.startswith(prefix + os.sep) for prefix in python_dirs()):
        binds.args += ["--tmpfs", package]


def bwrap_argv(
    argv: Sequence[str],
    mounts: Sequence[Mount],
    env: Mapping[str, str],
    cwd: str,
    tmp_bytes: int | None = None,
    user: int | None = None,
) -> list[str]:
    """The full bubblewrap command line; the host environment is never inherited.
    `tmp_bytes` sizes the sandbox's /tmp and /dev/shm (a tmpfs is RAM: it counts against
    memory). `user`: bubblewrap runs as root and the command as this uid
    (`harnesspro.sandbox.user`); None: bubblewrap runs as us, in its own user namespace."""
    setpriv = _setpriv() if user is not None else ""
    args = ["bwrap", "--die-with-parent", "--new-session"]
    if setpriv:
        args += root_setup()
    else:
        args += ["--unshare-all", "--cap-drop", "ALL"]
    sized = ["--size", str(tmp_bytes)] if tmp_bytes else []
    # Empty /tmp and /run first: the interpreter (a venv under /tmp, say) is bound after them.
    args += ["--dev", "/dev", "--proc", "/proc", *sized, "--perms", "1777", "--tmpfs", "/tmp"]
    args += [*sized, "--perms", "1777", "--tmpfs", "/dev/shm", "--tmpfs", "/run"]
    binds = Binds()
    _system_args(binds)
    for mount in mounts:
        binds.add("--bind" if mount.writable else "--ro-bind", str(mount.source), mount.target)
    args += binds.args
    if setpriv:
        args += guard_mounts([m.target for m in mounts if m.writable], setpriv)
    # The sandbox's own root (where mount points were made) becomes read-only too.
    args += ["--remount-ro", "/", "--clearenv"]
    env = {"PATH": sandbox_path(), "HOME": "/tmp", "LANG": "C.UTF-8", **env}
    if user is not None and setpriv:
        return [*args, "--", *switch_command(user, setpriv, env, cwd, argv)]
    args += ["--chdir", cwd]
    for key, value in env.items():
        args += ["--setenv", key, value]
    return [*args, "--", *argv]


def _setpriv() -> str:
    found = setpriv_path()
    if found is None:
        raise SandboxUnavailable(
            "setpriv (util-linux) is missing: the sandbox cannot drop root for the commands it "
            "runs; install it with `apt-get install -y util-linux`."
        )
    return found


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


def _preexec(cgroup: SandboxCgroup, limits: Limits) -> None:
    cgroup.join()
    memory_bytes = limits.memory_mb * 1024 * 1024
    file_bytes = limits.max_file_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))


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
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        start_new_session=True,
        preexec_fn=lambda: _preexec(cgroup, limits),
    )
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


class Bubblewrap:
    """Runs commands under bubblewrap (see the module docstring for what it isolates)."""

    def __init__(self, limits: Limits | None = None) -> None:
        if shutil.which("bwrap") is None:
            raise SandboxUnavailable(
                "bubblewrap (bwrap) is not installed; install it with "
                "`apt-get install -y bubblewrap` (or run `make quickstart` as root)."
            )
        if sandbox_uid() is not None:
            _setpriv()
        self.limits = limits or Limits()

    def run(
        self,
        argv: Sequence[str],
        mounts: Sequence[Mount],
        env: Mapping[str, str],
        cwd: str,
        timeout_s: float,
    ) -> SandboxResult:
        user = sandbox_uid()
        if user is not None:
            for mount in mounts:
                if mount.writable:
                    hand_over(mount.source, user)
                else:
                    let_read(mount.source, (*SYSTEM_DIRS, *python_dirs()))
        tmp_bytes = self.limits.memory_mb * 1024 * 1024
        command = bwrap_argv(argv, mounts, env, cwd, tmp_bytes, user)
        return run_limited(
            command, {"PATH": os.environ.get("PATH", "")}, None, timeout_s, self.limits
        )

    def visible_path(self, mounts: Sequence[Mount], target: str) -> str:
        return target


LOCAL_WARNING = (
    "warning: sandbox.backend is 'local': harness code runs WITHOUT isolation (as you, with "
    "your files and network); install bubblewrap and use backend 'bubblewrap'."
)
"""What `evolve` says once at start when the configured backend is `local`."""
_LOCAL_WARNED = False  # the warning is said once per process, not once per rollout


class Local:
    """No isolation: processes run on the host with mounts mapped to their host sources.

    Only for machines without bubblewrap. The harness can read and write anything the user
    can, reach the network, and see the host environment minus the variables we drop.
    Mount targets are mapped in argv, the environment, the working directory and the text
    of a shell script run as `bash|sh SCRIPT` (a task's test.sh names /workspace, /logs...);
    other files that name container paths are not rewritten.
    """

    def __init__(self, limits: Limits | None = None) -> None:
        global _LOCAL_WARNED
        if not _LOCAL_WARNED:
            _LOCAL_WARNED = True
            warnings.warn(
                "sandbox backend 'local' gives NO isolation: harness code runs as you, with "
                "your files and network. Install bubblewrap and use backend 'bubblewrap'.",
                stacklevel=2,
            )
            print(
                "WARNING: sandbox backend 'local' runs harnesses WITHOUT isolation.",
                file=sys.stderr,
            )
        self.limits = limits or Limits()

    def visible_path(self, mounts: Sequence[Mount], target: str) -> str:
        return mounted_source(mounts, target) or target

    def run(
        self,
        argv: Sequence[str],
        mounts: Sequence[Mount],
        env: Mapping[str, str],
        cwd: str,
        timeout_s: float,
    ) -> SandboxResult:
        mapped = [self.visible_path(mounts, a) if a.startswith("/") else a for a in argv]
        host_env = {"PATH": sandbox_path(), "HOME": os.environ.get("HOME", "/tmp"), **env}
        host_env = {k: self.visible_path(mounts, v) for k, v in host_env.items()}
        with tempfile.TemporaryDirectory(prefix="hp-local-") as tmp:
            if len(mapped) > 1 and mapped[0] in ("bash", "sh") and os.path.isfile(mapped[1]):
                script = Path(tmp) / "script.sh"
                script.write_text(map_paths(Path(mapped[1]).read_text(), mounts))
                mapped[1] = str(script)
            cwd = self.visible_path(mounts, cwd)
            return run_limited(mapped, host_env, cwd, timeout_s, self.limits)


def map_paths(text: str, mounts: Sequence[Mount]) -> str:
    """`text` with every mount target used as a path (not inside a longer path) replaced by
    its host source, longest target first, in one pass."""
    moved = {m.target.rstrip("/"): str(m.source) for m in mounts if str(m.source) != m.target}
    if not moved:
        return text
    names = "|".join(re.escape(t) for t in sorted(moved, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w./-])({names})(?![\w.-])")
    return pattern.sub(lambda m: moved[m.group(1)], text)


def make_sandbox(backend: str, limits: Limits | None = None) -> Sandbox:
    """The configured backend: 'bubblewrap' (default) or 'local' (no isolation)."""
    if backend == "local":
        return Local(limits)
    return Bubblewrap(limits)
