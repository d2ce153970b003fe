"""Smoke rollouts remembered by what determines them, across runs and processes.

A smoke rollout is fixed apart from the harness: the same smoke task, the scripted policy, the
same sampling seed, price and limits. So two harnesses with equal files give the same rollout,
and a bench or a test session makes the same trees again and again (the screening design and
random search draw the same genomes from the same run seed on every profile). Results are kept
in this process and in `smoke-rollouts.sqlite` under the machine's harnesspro cache
(`$HARNESSPRO_CACHE`, else `~/.cache/harnesspro`), under a key of our own rollout code, the
sandbox backend, the task's content and the harness's files. Only completed (`ok`) rollouts
are stored: a failure may be the machine's (a timeout under load), so another process runs it
again (this one keeps it, as it keeps every smoke rollout it ran).
Results are pickled: the cache is the user's own, like the tool environments beside it.
"""

from __future__ import annotations

import hashlib
import pickle
import sqlite3
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from harnesspro.core.fsnames import raw
from harnesspro.core.records import RolloutResult
from harnesspro.execution.rollout_cache import CODE_DIGEST
from harnesspro.tasks.toolenv import cache_root

_KEPT: dict[str, RolloutResult] = {}
_LOCK = threading.Lock()


def files_digest(files: Mapping[str, bytes]) -> str:
    """A digest of a harness's files (a worktree's `.git` pointer left out: it is not harness
    content)."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        if rel == ".git" or rel.startswith(".git/"):
            continue
        digest.update(raw(rel) + b"\0" + hashlib.sha256(files[rel]).digest())
    return digest.hexdigest()


def smoke_key(files: Mapping[str, bytes], sandbox: str, task_digest: str) -> str:
    """Everything a smoke rollout depends on besides the fixed settings of `smoke_rollout`."""
    parts = (CODE_DIGEST, sys.version, sandbox, task_digest, files_digest(files))
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def memo_path() -> Path:
    return cache_root() / "smoke-rollouts.sqlite"


def _open() -> sqlite3.Connection:
    path = memo_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=60)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS smoke (key TEXT PRIMARY KEY, result BLOB)")
    return db


def _stored(key: str) -> RolloutResult | None:
    db = _open()
    try:
        row = db.execute("SELECT result FROM smoke WHERE key = ?", (key,)).fetchone()
    finally:
        db.close()
    return None if row is None else pickle.loads(row[0])


def _store(key: str, result: RolloutResult) -> None:
    db = _open()
    try:
        with db:
            db.execute("INSERT OR REPLACE INTO smoke VALUES (?, ?)", (key, pickle.dumps(result)))
    finally:
        db.close()


def remembered(key: str, run: Callable[[], RolloutResult]) -> RolloutResult:
    """The smoke rollout under `key`: kept here, else stored in the cache, else `run()` (and
    kept when it completed)."""
    with _LOCK:
        known = _KEPT.get(key)
    if known is None:
        known = _stored(key)
    if known is None:
        known = run()
        if known.status == "ok":
            _store(key, known)
    with _LOCK:
        _KEPT[key] = known
    return known
