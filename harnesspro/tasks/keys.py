"""Task content hashes in rollout keys: a changed task never reuses an old rollout.

A rollout key includes the hash of its task's folder (every file, the hash a split manifest
records), so neither a resumed run nor the shared rollout cache serves a result of an older
version of the task. A run records the hashes it keys with in its ledger; reopened with a task
that changed and already has rollouts, it stops with one sentence (its scores would mix both
versions). A ledger whose rollouts were keyed before keys had the hash resumes with its old keys.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from harnesspro.core.ledger import Ledger
from harnesspro.core.records import Task
from harnesspro.tasks.loader import TaskError
from harnesspro.tasks.manifest import task_hash

META_KEY = "task_hashes"


def task_digest(task: Task) -> str:
    """The content hash of a task's folder (shortened; the manifest's hash of it)."""
    return task_hash(task.path).digest[:20]


def keyed_hashes(ledger: Ledger, tasks: Mapping[str, Task]) -> dict[str, str] | None:
    """The task hashes this run's rollout keys include (recorded in the ledger), or None for
    a ledger that has rollouts keyed without them."""
    recorded = ledger.meta(META_KEY)
    if recorded is None and ledger.rollout_keys():
        return None  # started before keys had task hashes: its finished keys stay valid
    old: dict[str, str] = json.loads(recorded) if recorded else {}
    hashes = {task_id: task_digest(task) for task_id, task in tasks.items()}
    changed = [t for t, h in hashes.items() if old.get(t, h) != h]
    if changed:
        ran = set(ledger.rollouts()["task_id"])
        stale = [t for t in changed if t in ran]
        if stale:
            raise TaskError(
                f"task '{stale[0]}' ({tasks[stale[0]].path}) changed since this run's rollouts "
                "of it were recorded; restore it or start a new run folder."
            )
    ledger.set_meta(META_KEY, json.dumps({**old, **hashes}, sort_keys=True))
    return hashes
