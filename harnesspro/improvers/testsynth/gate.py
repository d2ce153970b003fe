"""Tests that can fail: a synthesized test (llm or offline) is frozen as scorable only when it
fails on the task's untouched workspace (it asks for work to be done) and passes on at least
one of the seed's rollouts (it can be passed at all). A pytest-kind test also needs a pytest
in the interpreter that runs it; without one it would fail every rollout.

A test the seed never passes keeps the instruction's checks alone, when they fail on the
untouched workspace (`gated`): they come from the instruction, not from the seed's behaviour,
so a task the seed never solved stays in the search, scored on what the instruction states.

The untouched workspace is the task's working directory as a fresh layout lays it out (the
same runtime that rollouts start from), before any command ran.
"""

from __future__ import annotations

import importlib.util
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from harnesspro.core.records import Task
from harnesspro.improvers.testsynth.check import SEED
from harnesspro.improvers.testsynth.llm import ExecTest, passes
from harnesspro.improvers.testsynth.offline import SynthTest, score
from harnesspro.sandbox.contract import Sandbox
from harnesspro.sandbox.snapshot import Snapshot
from harnesspro.sandbox.snapshot import take as take_snapshot
from harnesspro.tasks.runtime import open_task

VACUOUS = "it passes on the task's untouched workspace, so it cannot tell work from no work"
NO_PYTEST = (
    "it is a pytest test and the interpreter that runs tests has no pytest (pip install "
    "pytest, or write a shell test)"
)


def untouched_workspace(task: Task, sandbox: Sandbox) -> Snapshot:
    """The task's working directory before any command ran, as a rollout would find it."""
    with tempfile.TemporaryDirectory(prefix="hp-untouched-") as tmp:
        layout = open_task(task, Path(tmp) / "task")
        return take_snapshot(layout.host(layout.workdir), sandbox, layout.workdir)


def pytest_available() -> bool:
    """Whether the interpreter synthesized pytest tests run under can import pytest."""
    return importlib.util.find_spec("pytest") is not None


def _passes(test: ExecTest | SynthTest, snapshot: Snapshot, sandbox: Sandbox) -> bool:
    if isinstance(test, ExecTest):
        return passes(test, snapshot, sandbox)
    return score(test, snapshot, sandbox)


def refusal(
    test: ExecTest | SynthTest,
    untouched: Snapshot,
    seeds: Sequence[Snapshot],
    sandbox: Sandbox,
) -> str:
    """Why the test cannot score ('' when it can): no pytest for a pytest test, a pass on the
    untouched workspace, or no pass on any seed rollout."""
    if isinstance(test, ExecTest) and test.kind == "pytest" and not pytest_available():
        return NO_PYTEST
    if _passes(test, untouched, sandbox):
        return VACUOUS
    verdicts = (
        test.seed_verdicts
        if isinstance(test, ExecTest) and len(test.seed_verdicts) == len(seeds)
        else tuple(_passes(test, s, sandbox) for s in seeds)
    )
    if not any(verdicts):
        return (
            f"it passes on none of the seed's {len(seeds)} rollouts, so nothing shows it can "
            "be passed"
        )
    return ""


def gated(
    test: SynthTest, untouched: Snapshot, seeds: Sequence[Snapshot], sandbox: Sandbox
) -> SynthTest:
    """The offline test as it is frozen: scorable when `refusal` finds nothing; refused, its
    instruction's checks alone when they fail on the untouched workspace; else unscorable
    with the refusal's reason."""
    if test.unscorable:
        return test
    reason = refusal(test, untouched, seeds, sandbox)
    if not reason:
        return test
    stated = replace(test, checks=tuple(c for c in test.checks if c.kind != SEED))
    if stated.checks and not _passes(stated, untouched, sandbox):
        return stated
    return replace(test, unscorable=reason)
