"""Reading and removing what a sandboxed process made, on the host, without trusting it.

A harness (or a program of its that a verifier runs) can leave a symbolic link where a file is
expected (to /proc/self/environ, say), a FIFO that blocks whoever opens it, a device, or a
folder chain deep enough to overflow a recursive walk. Files are opened without following a
link and without blocking, checked to be regular, and read up to a cap; trees are removed by
`rm`, which walks iteratively, under a time limit.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
from pathlib import Path

REMOVE_TIMEOUT_S = 120.0


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
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)
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


def remove_tree(path: Path, timeout_s: float = REMOVE_TIMEOUT_S) -> None:
    """Remove `path` whatever it is (a link or FIFO is unlinked, never followed or opened;
    a folder of any depth goes too), giving up after `timeout_s`."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
        path.unlink()
        return
    rm = shutil.which("rm") or "/bin/rm"
    subprocess.run(
        [rm, "-rf", "--one-file-system", "--", str(path)],
        capture_output=True,
        timeout=timeout_s,
        check=False,
    )
