"""What a sandboxed process made, handled on the host without trusting it.

A harness (or a program of its that a verifier runs) controls everything under its rollout's
folders: a link where a file is expected (to /proc/self/environ or a host file: a read follows
it), a FIFO (opening it blocks forever), a device, a 1,500-deep folder chain (Python recursion
runs out), a folder it made unreadable. So folders are walked without recursion, files are
opened without following a link and without blocking, checked to be regular and read up to a
cap, and trees are removed by `rm -rf` (iterative, never crossing a link) under a time limit.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

PATH_CAP = 1000
"""Longest relative path (characters) walked: deeper entries are left out, as the host's path
limit (4,096) would otherwise refuse them."""
REMOVE_TIMEOUT_S = 120.0
"""Wall-clock limit of each command removing a folder."""


class NotAFile(OSError):
    """Something other than a regular file stands where one was expected; the message says
    what, in a few words."""


def kind(mode: int) -> str:
    """What a file of this mode is, in words."""
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_bytes(path: Path, cap: int) -> bytes:
    """At most `cap` bytes of the regular file at `path`; FileNotFoundError when there is
    none, NotAFile when a link, FIFO, device or folder stands there (never opened through)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotAFile(f"{path.name} is a symbolic link") from None
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO opened by nobody
            raise NotAFile(f"{path.name} is {kind(os.lstat(path).st_mode)}") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotAFile(f"{path.name} is {kind(mode)}")
        chunks, left = [], cap
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: Path, cap: int) -> str:
    """`read_bytes` decoded as UTF-8, undecodable bytes replaced."""
    return read_bytes(path, cap).decode("utf-8", errors="replace")


def read_regular(path: Path, cap: int) -> bytes | None:
    """`read_bytes`, or None when there is no regular, readable file there."""
    try:
        return read_bytes(path, cap)
    except OSError:
        return None


def walk(root: Path, path_cap: int = PATH_CAP) -> Iterator[tuple[str, os.stat_result]]:
    """(relative path, lstat) of everything under `root`, depth first with each folder's
    subfolders then its other entries in name order; links are never followed, a folder that
    cannot be listed is yielded but not entered, and entries whose relative path exceeds
    `path_cap` characters are left out. Iterative: any depth is fine."""
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            entries = _listing(root / rel)
        except OSError:
            continue
        entries.sort(key=lambda e: (not stat.S_ISDIR(e[1].st_mode), e[0]))
        subfolders = []
        for name, st in entries:
            child = f"{rel}/{name}" if rel else name
            if len(child) > path_cap:
                continue
            yield child, st
            if stat.S_ISDIR(st.st_mode):
                subfolders.append(child)
        stack.extend(reversed(subfolders))


def _listing(folder: Path) -> list[tuple[str, os.stat_result]]:
    entries = []
    with os.scandir(folder) as listing:
        for entry in listing:
            try:
                entries.append((entry.name, entry.stat(follow_symlinks=False)))
            except OSError:  # gone since the listing
                continue
    return entries


def tree_size(root: Path) -> int:
    """Bytes of the regular files under `root` (links not followed)."""
    return sum(st.st_size for _, st in walk(root) if stat.S_ISREG(st.st_mode))


def _run(argv: list[str], timeout_s: float) -> str:
    """'' when the command succeeded within `timeout_s`, else why not (one line)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return f"`{argv[0]}` did not finish within {timeout_s:g} s"
    except OSError as exc:
        return f"`{argv[0]}` could not run: {exc}"
    if done.returncode:
        last = (done.stderr.strip().splitlines() or [""])[-1][:200]
        return f"`{argv[0]}` exited with status {done.returncode}: {last}".rstrip(": ")
    return ""


def remove_tree(root: Path, timeout_s: float = REMOVE_TIMEOUT_S) -> str:
    """Remove `root` and everything under it; '' when it is gone, else the reason it is not.

    `rm -rf` walks iteratively (any depth), never crosses into another file system and never
    follows a link; folders the harness made unwritable are opened up (`chmod -R`, which skips
    links too) and removal tried once more. Each command runs under `timeout_s`."""
    reason = _remove(root, timeout_s)
    if reason:
        _run(["chmod", "-R", "u+rwx", "--", str(root)], timeout_s)
        reason = _remove(root, timeout_s)
    return reason


def _remove(root: Path, timeout_s: float) -> str:
    if not os.path.lexists(root):
        return ""
    reason = _run(["rm", "-rf", "--one-file-system", "--", str(root)], timeout_s)
    if not reason and os.path.lexists(root):
        return f"{root} is still there after `rm -rf`"
    return reason
