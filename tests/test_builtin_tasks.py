"""Every built-in task: the reference solution passes its official tests, doing nothing fails."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from harnesspro.records import Task
from harnesspro.rollout import grade_official, write_tree
from harnesspro.sandbox import Bubblewrap, Mount
from harnesspro.tasks.loader import folder_files, load_suite, reference_steps, workspace_files

SUITE = load_suite("builtin")


def test_suite_size_and_categories() -> None:
    assert len(SUITE) >= 12
    assert len({t.category for t in SUITE}) >= 6


def run_reference(task: Task, work: Path) -> None:
    for step in reference_steps(task):
        result = Bubblewrap().run(
            ["bash", "-c", step], [Mount(work, task.workdir, True)], {}, task.workdir, 60
        )
        assert result.exit_code == 0, f"{task.id}: {step[:60]!r} failed: {result.stderr[-300:]}"


@pytest.mark.parametrize("task", SUITE, ids=[t.id for t in SUITE])
def test_reference_passes_and_nothing_fails(task: Task) -> None:
    tests = folder_files(task.path / "tests")
    assert reference_steps(task), f"{task.id} has no reference steps"
    with tempfile.TemporaryDirectory() as tmp:
        idle = write_tree(Path(tmp) / "idle", workspace_files(task))
        assert not grade_official(idle, task.workdir, tests, Path(tmp) / "g1").passed
        done = write_tree(Path(tmp) / "done", workspace_files(task))
        run_reference(task, done)
        assert grade_official(done, task.workdir, tests, Path(tmp) / "g2").passed
