"""Task content hashes in rollout keys: a changed task gets new keys, a run reopened with a
changed task it already ran stops, and a ledger keyed before the hashes keeps its keys."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harnesspro.core.config import RunConfig
from harnesspro.core.ledger import Ledger
from harnesspro.evaluation.engine import rollout_key
from harnesspro.execution.settings import RolloutSettings
from harnesspro.run.book import rollout_settings
from harnesspro.tasks.keys import keyed_hashes
from harnesspro.tasks.loader import TaskError, load_task
from tests.conftest import builtin_task


def folder_hash(folder: Path) -> str:
    """Independently: sha256 over `<sha256 of file>  <relative path>` lines, sorted by path."""
    lines = ""
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        lines += f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(folder)}\n"
    return hashlib.sha256(lines.encode()).hexdigest()[:20]


@pytest.fixture
def task_copy(tmp_path: Path) -> Path:
    source = builtin_task("fix_word_wrap").path
    return Path(shutil.copytree(source, tmp_path / "suite" / "fix_word_wrap"))


def settings_for(hashes: dict[str, str] | None) -> RolloutSettings:
    ctx: Any = SimpleNamespace(
        config=RunConfig(), price=None, behaviour=None, task_hashes=hashes, model_url=None
    )
    return rollout_settings(ctx)


def test_a_new_run_keys_with_each_tasks_content_hash(tmp_path: Path, task_copy: Path) -> None:
    task = load_task(task_copy)
    ledger = Ledger(tmp_path / "ledger.sqlite")
    hashes = keyed_hashes(ledger, {task.id: task})
    assert hashes == {task.id: folder_hash(task_copy)}
    candidate: Any = SimpleNamespace(tree="abc123")
    before = rollout_key(settings_for(hashes), candidate, task.id, 0)
    (task_copy / "tests" / "test.sh").write_text("#!/bin/bash\necho changed\n")
    changed = keyed_hashes(Ledger(tmp_path / "other.sqlite"), {task.id: task})
    assert changed is not None and changed[task.id] == folder_hash(task_copy)
    assert rollout_key(settings_for(changed), candidate, task.id, 0) != before
    # Same task content, same key: finished rollouts are found again on resume.
    assert rollout_key(settings_for(changed), candidate, task.id, 0) == rollout_key(
        settings_for(dict(changed)), candidate, task.id, 0
    )


def record_rollout(ledger: Ledger, key: str, task_id: str) -> None:
    with ledger.db:
        ledger.db.execute("INSERT INTO rollouts (key, task_id) VALUES (?, ?)", (key, task_id))


def test_reopening_with_a_changed_task_that_has_rollouts_stops(
    tmp_path: Path, task_copy: Path
) -> None:
    task = load_task(task_copy)
    path = tmp_path / "ledger.sqlite"
    assert keyed_hashes(Ledger(path), {task.id: task}) is not None
    (task_copy / "instruction.md").write_text("Something else.\n")
    # No rollout of it yet: the new hash is simply recorded.
    assert keyed_hashes(Ledger(path), {task.id: task}) == {task.id: folder_hash(task_copy)}
    record_rollout(Ledger(path), "k1", task.id)
    (task_copy / "instruction.md").write_text("Yet another thing.\n")
    with pytest.raises(TaskError, match="task 'fix_word_wrap' .* changed since this run"):
        keyed_hashes(Ledger(path), {task.id: task})


def test_a_ledger_keyed_before_task_hashes_keeps_its_keys(tmp_path: Path, task_copy: Path) -> None:
    task = load_task(task_copy)
    ledger = Ledger(tmp_path / "ledger.sqlite")
    candidate: Any = SimpleNamespace(tree="abc123")
    old_key = rollout_key(settings_for(None), candidate, task.id, 0)
    record_rollout(ledger, old_key, task.id)
    hashes = keyed_hashes(ledger, {task.id: task})
    assert hashes is None
    # Resuming computes the same key, so the finished rollout is not run again.
    assert rollout_key(settings_for(hashes), candidate, task.id, 0) in ledger.rollout_keys()
