"""Files that are either the old version or the new one, never half written: write a
temporary sibling, then rename it over the target (atomic on one file system)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary sibling of `path` to write; renamed onto `path` when the block succeeds."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomic(path: Path, text: str) -> None:
    """`path.write_text(text)`, atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)
