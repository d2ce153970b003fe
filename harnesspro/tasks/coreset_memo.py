"""Coresets remembered across processes.

A coreset is a pure function of the texts and its size, but drawing one imports scikit-learn
and fits a TF-IDF model (~2 CPU-s, most of it the import) in every process that draws it: every
`evolve`, including each resume of the same run. The drawn indices are kept as a small JSON
file under the machine's harnesspro cache (`$HARNESSPRO_CACHE`, else `~/.cache/harnesspro`),
keyed by the texts, the size, scikit-learn's version and the coreset code itself, so a change
to any of them draws afresh. A file that does not hold a valid draw is ignored and replaced.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from harnesspro.core.atomic import write_text_atomic
from harnesspro.tasks import coreset
from harnesspro.tasks.toolenv import cache_root

_CODE = hashlib.sha256(Path(coreset.__file__).read_bytes()).hexdigest()


def memo_key(texts: Sequence[str], k: int) -> str:
    """What a draw depends on: the coreset code, scikit-learn's version, k and the texts."""
    digest = hashlib.sha256(f"{_CODE}\0{metadata.version('scikit-learn')}\0{k}".encode())
    for text in texts:
        digest.update(b"\0" + hashlib.sha256(text.encode()).digest())
    return digest.hexdigest()


def _valid(picked: object, n: int, k: int) -> bool:
    """A draw of min(k, n) distinct indices into n texts (what `select_coreset` returns)."""
    return (
        isinstance(picked, list)
        and len(picked) == min(k, n)
        and all(isinstance(i, int) and 0 <= i < n for i in picked)
        and len(set(picked)) == len(picked)
    )


def remembered_coreset(texts: Sequence[str], k: int) -> list[int]:
    """`select_coreset(texts, k)`, read from the cache when this draw was made before."""
    path = cache_root() / "coresets" / f"{memo_key(texts, k)}.json"
    try:
        picked = json.loads(path.read_text())
    except (OSError, ValueError):
        picked = None
    if _valid(picked, len(texts), k):
        return list(picked)
    picked = coreset.select_coreset(texts, k)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(picked))
    except OSError:
        pass  # a read-only or full cache only costs the next process the draw
    return picked
