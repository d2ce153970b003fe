"""Every task of the packaged suites (`builtin`, `easy`): the reference solution passes its
official tests, doing nothing fails, both on the task runtime that rollouts use."""

from __future__ import annotations

import pytest

from harnesspro.core.records import Task
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.checktask import validate_task
from harnesspro.tasks.loader import load_suite, reference_steps

SUITE = load_suite("builtin")
EASY = load_suite("easy")


def test_suite_size_and_categories() -> None:
    assert len(SUITE) >= 12
    assert len({t.category for t in SUITE}) >= 6


def test_the_easy_suite_covers_the_built_in_categories() -> None:
    assert len(EASY) >= 24
    assert {t.category for t in EASY} == {t.category for t in SUITE}
    assert not {t.id for t in EASY} & {t.id for t in SUITE}


@pytest.mark.parametrize("task", SUITE + EASY, ids=[t.id for t in SUITE + EASY])
def test_reference_passes_and_nothing_fails(task: Task) -> None:
    assert reference_steps(task), f"{task.id} has no reference steps"
    result = validate_task(task, Bubblewrap())
    assert result.status == "ok", f"{task.id}: {result.reason}"
    assert result.idle is not None and not result.idle.passed
    assert result.reference is not None and result.reference.passed
