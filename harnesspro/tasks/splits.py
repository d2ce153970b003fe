"""Fixed splits of a task pool: train pool (coreset + validation) and a held-out test split."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from harnesspro.core.records import Task
from harnesspro.tasks.coreset_memo import remembered_coreset


@dataclass(frozen=True)
class Splits:
    """Task ids per split; the test split never reaches the search."""

    coreset: tuple[str, ...]
    validation: tuple[str, ...]
    test: tuple[str, ...]


def _rank(seed: int, task_id: str) -> str:
    return hashlib.sha256(f"{seed}:{task_id}".encode()).hexdigest()


def make_splits(tasks: list[Task], test_fraction: float, seed: int, coreset_size: int) -> Splits:
    """Hash-ordered test split, then a DPP coreset of the train pool; the rest is validation."""
    ordered = sorted(tasks, key=lambda t: _rank(seed, t.id))
    n_test = round(len(tasks) * test_fraction)
    test, pool = ordered[:n_test], sorted(ordered[n_test:], key=lambda t: t.id)
    picked = remembered_coreset([t.instruction for t in pool], min(coreset_size, len(pool)))
    coreset = tuple(sorted(pool[i].id for i in picked))
    return Splits(
        coreset=coreset,
        validation=tuple(t.id for t in pool if t.id not in coreset),
        test=tuple(sorted(t.id for t in test)),
    )
