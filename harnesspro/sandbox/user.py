"""The unprivileged user that sandboxed processes run as.

Run by root, bubblewrap builds the sandbox as root (every mount source is reachable, wherever
it lies), then `setpriv` switches the command to `SANDBOX_UID` before anything of the
harness's runs: root-only host files (/etc/shadow, /root, /proc/1/environ) are unreadable
inside, and the only files it can write are the writable mounts, handed to that user first.
Run by another user, bubblewrap maps that user into its own user namespace: root's files are
out of reach already and nothing changes hands.

The switch is the one step that runs as root inside the sandbox's file system, so it sees
nothing a harness could have planted: the host's `setpriv` bound last at its own path, an
empty environment (no LD_* variables), and the host's loader files over a writable /etc.
The command's environment and working directory are set after the switch, by `env`.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

SANDBOX_UID = 65534
"""`nobody` (and group `nogroup`): owns no host file that a sandbox can reach (only the
writable mounts we hand it)."""
UNSHARE = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts")
"""Every namespace of `--unshare-all` but the user namespace: with one, root's capabilities
stop at host files, and bubblewrap could not bind sources under root-only folders."""
SWITCH_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")
"""All `setpriv` keeps until it switches user (SETPCAP empties the bounding set)."""
LOADER_FILES = ("/etc/ld.so.preload", "/etc/ld.so.cache")
"""What the dynamic loader reads before `setpriv` runs: a task's /etc may be writable."""


def sandbox_uid() -> int | None:
    """The uid sandboxed commands switch to, or None when we are not root (nothing to drop)."""
    return SANDBOX_UID if os.geteuid() == 0 else None


def let_read(source: os.PathLike[str] | str, system_dirs: Sequence[str]) -> None:
    """Let others list and cross a folder bound read-only (a folder made by `mkdtemp`, say a
    tool environment, is 0700): the sandbox user reads what is bound for it. Never a host
    system folder's entry (/etc/shadow stays root's), never a file, never through a link."""
    try:
        info = os.lstat(source)
        real = os.path.realpath(source)
    except OSError:
        return
    mode = stat.S_IMODE(info.st_mode)
    if not stat.S_ISDIR(info.st_mode) or mode & 0o005 == 0o005:
        return
    if real == "/" or any(_under(real, folder) for folder in system_dirs):
        return
    try:
        fd = os.open(source, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if os.fstat(fd).st_ino == info.st_ino:  # still the folder looked at
            os.fchmod(fd, mode | 0o005)
    finally:
        os.close(fd)


def share_socket(path: Path) -> None:
    """Let the sandbox user connect to the Unix socket at `path`, bound into sandboxes by its
    folder: both go to the sandbox's group (the socket 0660, the folder searchable by it)."""
    if sandbox_uid() is None:
        return
    os.chown(path, -1, SANDBOX_UID)
    os.chmod(path, 0o660)
    os.chown(path.parent, -1, SANDBOX_UID)
    os.chmod(path.parent, stat.S_IMODE(path.parent.stat().st_mode) | 0o010)


def setpriv_path() -> str | None:
    """The host's `setpriv` (util-linux), resolved through links; None when missing."""
    found = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin")
    return os.path.realpath(found) if found else None


def root_setup() -> list[str]:
    """Namespaces and capabilities of a bubblewrap run by root that switches user."""
    args = [*UNSHARE, "--unshare-cgroup-try", "--cap-drop", "ALL"]
    for cap in SWITCH_CAPS:
        args += ["--cap-add", cap]
    return args


def guard_mounts(mounts_writable: Sequence[str], setpriv: str) -> list[str]:
    """Binds made last, over anything a harness could have written, for the root step:
    `setpriv` itself and, when /etc is writable, the loader's own files."""
    args = ["--ro-bind", setpriv, setpriv]
    if any(target.rstrip("/") in ("", "/etc") for target in mounts_writable):
        for name in LOADER_FILES:
            args += ["--ro-bind", name if os.path.exists(name) else "/dev/null", name]
    return args


def switch_command(
    user: int, setpriv: str, env: Mapping[str, str], cwd: str, argv: Sequence[str]
) -> list[str]:
    """`argv` as `user`, no groups, no capabilities, in `cwd` with exactly `env`."""
    drop = [setpriv, f"--reuid={user}", f"--regid={user}", "--clear-groups"]
    drop += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    # `env` reads NAME=VALUE words up to the command: one with "=" in its name goes via sh.
    command = list(argv)
    if command and "=" in command[0]:
        command = ["/bin/sh", "-c", 'exec "$0" "$@"', *command]
    assignments = [f"{key}={value}" for key, value in env.items()]
    return [*drop, "/usr/bin/env", "-i", f"--chdir={cwd}", "--", *assignments, *command]


def hand_over(root: os.PathLike[str] | str, user: int) -> None:
    """Make `root` and everything under it owned by `user`, never following a link (a link
    a harness left must not hand it a host file); iterative, so depth cannot overflow."""
    pending = [os.fspath(root)]
    while pending:
        path = pending.pop()
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISLNK(info.st_mode):
            continue
        if info.st_uid != user or info.st_gid != user:
            os.chown(path, user, user, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            try:
                with os.scandir(path) as entries:
                    pending.extend(entry.path for entry in entries)
            except OSError:
                continue


class Binds:
    """Bind arguments in order, each preceded by `--dir` for the folders above its target
    that no earlier bind made (world-searchable: bubblewrap makes missing ones mode 0700,
    which only root could then cross)."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self._made: set[str] = set()

    def copy(self) -> Binds:
        twin = Binds()
        twin.args, twin._made = list(self.args), set(self._made)
        return twin

    def add(self, flag: str, source: str, target: str) -> None:
        for parent in reversed(Path(target).parents[:-1]):
            if str(parent) not in self._made:
                self.args += ["--perms", "0755", "--dir", str(parent)]
                self._made.add(str(parent))
        self.args += [flag, source, target]
        # Folders made under the target are now covered by it: make them again if needed.
        self._made = {p for p in self._made if not _under(p, target)}


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
