"""Bubblewrap: read-only system, only the given mounts writable, no network, own PID namespace,
host environment not inherited, never root (harnesspro.sandbox.user), memory, process and
file-size caps, output cap, and a wall-clock timeout that kills every process it started."""

from __future__ import annotations

import functools
import os
import shutil
import sysconfig
from collections.abc import Mapping, Sequence
from pathlib import Path

from harnesspro.sandbox.contract import (
    Limits,
    Mount,
    SandboxResult,
    SandboxUnavailable,
)
from harnesspro.sandbox.paths import python_dirs, sandbox_path
from harnesspro.sandbox.process import run_limited
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


@functools.cache
def _system_binds() -> Binds:
    """The system's binds, worked out once per process (~3 ms at every sandbox start)."""
    binds = Binds()
    _system_args(binds)
    return binds


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
    # An editable install's package stays outside (its source tree is not bound), but its
    # .pth would still import a finder at every interpreter start (~20 ms): blank it.
    for pth in editable_pth_files():
        binds.add("--ro-bind", "/dev/null", str(pth))


@functools.cache
def editable_pth_files() -> tuple[Path, ...]:
    """The .pth files of an editable harnesspro install in the interpreter's site-packages
    (looked up once per process, not at every sandbox start)."""
    site = Path(sysconfig.get_path("purelib"))
    return tuple(sorted(site.glob("__editable__.harnesspro-*.pth")))


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
    binds = _system_binds().copy()
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
