"""A memo of official verdicts, for the benchmark's fast mode (`evaluation.verdict_memo`).

In the scripted world the official verifier is a function of the task and of the file system
the rollout leaves behind: a rollout whose staged container file system and agent logs are
equal, byte for byte (modes and links included), to those of one already graded gets that
verdict without running the tests again. On one unit of the bench, 588 test rollouts ended in
86 such states, and the verifier is about 40% of a test rollout's time.

Not for real tasks or untrusted harnesses: a verifier may read what the digest leaves out
(the clock, the network, anything outside the task's folders). The memo is a SQLite file on
this machine, opened by the rollout workers, so every worker must run on this machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
from dataclasses import asdict
from pathlib import Path
from typing import Any

from harnesspro.core.records import VerifierEvidence

MAX_ENTRIES = 20_000
MAX_BYTES = 64 * 2**20
"""A tree bigger than this is graded, not memoised: hashing it would cost what grading does."""


class TooBig(Exception):
    """The tree exceeds MAX_ENTRIES or MAX_BYTES."""


def _entry(path: Path, rel: str, digest: Any) -> int:
    """Feed one entry (name, kind, permission bits, content or link target) to `digest`;
    returns its size in bytes."""
    info = path.lstat()
    kind = stat.S_IFMT(info.st_mode)
    digest.update(f"{rel}\0{kind:o}\0{stat.S_IMODE(info.st_mode):o}\0".encode())
    if stat.S_ISLNK(info.st_mode):
        digest.update(os.readlink(path).encode(errors="surrogateescape"))
    elif stat.S_ISREG(info.st_mode):
        digest.update(hashlib.sha256(path.read_bytes()).digest())
        return info.st_size
    return 0


def tree_digest(*roots: Path) -> str:
    """A digest of the trees under `roots`: every entry's relative name, kind, permission
    bits, and content (files) or target (links), in a fixed order; links are never followed.
    Raises TooBig past MAX_ENTRIES entries or MAX_BYTES bytes."""
    digest = hashlib.sha256()
    entries = size = 0
    for number, root in enumerate(roots):
        digest.update(f"\1root {number}\0".encode())
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            base = Path(folder)
            for name in [*sorted(files), *dirs]:
                entries += 1
                size += _entry(base / name, str((base / name).relative_to(root)), digest)
                if entries > MAX_ENTRIES or size > MAX_BYTES:
                    raise TooBig(f"{root}: over {MAX_ENTRIES} entries or {MAX_BYTES} bytes")
    return digest.hexdigest()


def memo_key(task_digest: str, *roots: Path) -> str | None:
    """The memo's key for a task (as shipped: its tests and verifier settings included) left
    in this state, or None when the tree is too big."""
    try:
        tree = tree_digest(*roots)
    except TooBig:
        return None
    return hashlib.sha256(f"{task_digest}\0{tree}".encode()).hexdigest()


class VerdictMemo:
    """Verdicts by key: a SQLite file that the worker processes of this machine share."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verdict TEXT)")

    def get(self, key: str) -> VerifierEvidence | None:
        row = self.db.execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
        return None if row is None else VerifierEvidence(**json.loads(row[0]))

    def put(self, key: str, verdict: VerifierEvidence) -> None:
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO verdicts VALUES (?, ?)", (key, json.dumps(asdict(verdict)))
            )

    def close(self) -> None:
        self.db.close()
