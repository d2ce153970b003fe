"""A rollout cache shared between runs (`evaluation.rollout_cache`): `harnesspro bench` runs
every strategy on the same profile, and their seeds, common candidates and final operating
points are the same rollouts. A result is reused only when everything that determines it is
equal: the candidate's tree, the task and its content, the attempt (hence the sampling seed),
the model config (the behaviour profile included), price, limits and whether the verifier ran.
Only the driver reads and writes it; results are pickled, so share it only with yourself."""

from __future__ import annotations

import hashlib
import pickle
import sqlite3
from dataclasses import replace
from pathlib import Path

from harnesspro.core.records import RolloutResult
from harnesspro.execution.rollout import RolloutInputs, rollout_salt

PACKAGE = Path(__file__).parents[1]  # the harnesspro package
SHAPING_FOLDERS = ("sandbox", "execution/fakes", "execution/gateway")
"""Folders of our own code that shape a rollout, beside execution/rollout.py."""


def shaping_files() -> list[Path]:
    """Our own code that shapes a rollout (policy, gateway, sandbox, rollout)."""
    files = [PACKAGE / "execution" / "rollout.py"]
    for folder in SHAPING_FOLDERS:
        found = sorted((PACKAGE / folder).glob("*.py"))
        if not found:  # a moved folder would silently leave the digest blind to it
            raise RuntimeError(f"rollout cache: no code under {PACKAGE / folder}")
        files += found
    return files


def _code_digest() -> str:
    """A digest of `shaping_files()`: a changed policy must not be served results it did not
    produce."""
    files = shaping_files()
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())
    return digest.hexdigest()


CODE_DIGEST = _code_digest()


def cache_key(inputs: RolloutInputs) -> str:
    """The rollout key (tree, task, attempt, model, timeout) plus what a run may vary."""
    parts: tuple[object, ...] = (
        CODE_DIGEST,
        inputs.spec.key,
        inputs.model.model_dump_json(),
        inputs.price,
        inputs.sampling_seed,
        inputs.timeout_s,
        inputs.sandbox,
        inputs.memory_mb,
        inputs.budget,
        inputs.grade,
        inputs.behaviour.digest(),
        inputs.task.digest,  # the task as shipped, and what the scripted policy knows of it
        repr(inputs.script),
        inputs.verdict_memo is not None,  # the fast mode's results stay apart from real ones
    )
    salt = rollout_salt(inputs)
    if salt:  # world v3 without common draws: each candidate's rollout is its own
        parts += (salt,)
    return hashlib.sha256(repr(parts).encode()).hexdigest()


class RolloutCache:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS rollouts (key TEXT PRIMARY KEY, result BLOB)")
        self.hits = 0

    def get(self, inputs: RolloutInputs) -> RolloutResult | None:
        """The cached result under this run's rollout key, or None."""
        row = self.db.execute(
            "SELECT result FROM rollouts WHERE key = ?", (cache_key(inputs),)
        ).fetchone()
        if row is None:
            return None
        self.hits += 1
        result: RolloutResult = pickle.loads(row[0])
        return replace(result, key=inputs.spec.key)

    def put(self, inputs: RolloutInputs, result: RolloutResult) -> None:
        """Keep a finished rollout; infrastructure faults are never cached."""
        if result.status != "infra_error":
            with self.db:
                self.db.execute(
                    "INSERT OR REPLACE INTO rollouts VALUES (?, ?)",
                    (cache_key(inputs), pickle.dumps(result)),
                )

    def close(self) -> None:
        self.db.close()
