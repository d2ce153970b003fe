"""Bytecode for a harness's Python sources, written beside them for each rollout.

A rollout writes the harness's files into a fresh folder that the sandbox mounts read-only,
so Python compiled every module of the harness at every start (about 8 ms of CPU for the seed
agent, a few percent of a scripted rollout). Checked-hash .pyc files (PEP 552) hold in any
folder: Python compares the source's hash, not its time stamp, and compiles the source itself
when they differ or when the interpreter's version differs. Each source is compiled once per
process; compiling runs none of its code.
"""

from __future__ import annotations

import functools
import importlib.util
import marshal
import sys
from collections.abc import Mapping
from pathlib import PurePosixPath

CHECKED_HASH = 0b11  # PEP 552 flags: hash-based, checked against the source
MAX_SOURCE = 256 * 1024  # bigger sources compile in the sandbox, at the harness's expense
MAX_TOTAL = 1024 * 1024  # compiled here per rollout at most: the rest compiles in the sandbox


@functools.lru_cache(maxsize=256)
def pyc_of(source: bytes) -> bytes | None:
    """The checked-hash .pyc of one source, or None when it does not compile."""
    try:
        code = compile(source, "<harness>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError):
        return None
    header = importlib.util.MAGIC_NUMBER + CHECKED_HASH.to_bytes(4, "little")
    return header + importlib.util.source_hash(source) + marshal.dumps(code)


def bytecode_files(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """`__pycache__/<name>.<tag>.pyc` -> bytes for each `.py` file of `files` that compiles
    and has no such file of its own, up to MAX_TOTAL bytes of sources in all (compiling runs
    outside the sandbox's limits)."""
    tag = sys.implementation.cache_tag
    out = {}
    left = MAX_TOTAL
    for rel, source in sorted(files.items()):
        if not rel.endswith(".py") or len(source) > min(MAX_SOURCE, left) or tag is None:
            continue
        left -= len(source)
        path = PurePosixPath(rel)
        pyc = str(path.parent / "__pycache__" / f"{path.stem}.{tag}.pyc")
        data = None if pyc in files else pyc_of(source)
        if data is not None:
            out[pyc] = data
    return out
