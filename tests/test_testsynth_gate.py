"""Tests that can fail (testsynth/gate.py): a planted vacuous test and a planted always-fail
pytest test are both refused, a pytest test without pytest is refused, a test that tells work
from no work is kept; and at freezing, a refused llm test gives way to the offline checks,
which are unscorable with the reason when they cannot fail either."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harnesspro.evaluation.scoring import write_test
from harnesspro.evolution.improve import search_account
from harnesspro.execution.gateway.upstream import ReplayUpstream
from harnesspro.improvers.testsynth import gate
from harnesspro.improvers.testsynth.check import INSTRUCTION
from harnesspro.improvers.testsynth.facts import read_instruction
from harnesspro.improvers.testsynth.gate import VACUOUS, refusal, untouched_workspace
from harnesspro.improvers.testsynth.llm import ExecTest
from harnesspro.improvers.testsynth.offline import Check, SynthTest
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.snapshot import Snapshot
from tests.conftest import builtin_task, llm_run, reply

UNTOUCHED = Snapshot({"in.txt": b"a\nb\nc\n"})
DONE = Snapshot({"in.txt": b"a\nb\nc\n", "out.txt": b"3\n"})
COUNTS = 'test "$(cat out.txt)" = 3\n'


def shell(code: str) -> ExecTest:
    return ExecTest("count", "/workspace", "shell", code)


def test_a_planted_vacuous_test_is_refused() -> None:
    sandbox = Bubblewrap()
    assert refusal(shell("exit 0\n"), UNTOUCHED, [DONE, DONE], sandbox) == VACUOUS
    # an offline check that already holds before any work: the input file exists
    instruction = "Count the lines of `/workspace/in.txt` into `/workspace/out.txt`."
    reading = read_instruction(instruction, "/workspace")
    offline = SynthTest("count", reading, (Check("exists:in.txt", "True"),))
    assert refusal(offline, UNTOUCHED, [DONE], sandbox) == VACUOUS


def test_a_planted_always_fail_pytest_test_is_refused() -> None:
    test = ExecTest("count", "/workspace", "pytest", "def test_out():\n    assert False\n")
    why = refusal(test, UNTOUCHED, [DONE, DONE], Bubblewrap())
    assert why.startswith("it passes on none of the seed's 2 rollouts")


def test_a_pytest_test_without_pytest_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate, "pytest_available", lambda: False)
    test = ExecTest("count", "/workspace", "pytest", "def test_out():\n    assert True\n")
    assert refusal(test, UNTOUCHED, [DONE], Bubblewrap()) == gate.NO_PYTEST


def test_a_test_that_tells_work_from_no_work_is_kept() -> None:
    sandbox = Bubblewrap()
    assert refusal(shell(COUNTS), UNTOUCHED, [UNTOUCHED, DONE], sandbox) == ""
    code = "def test_out():\n    assert open('out.txt').read() == '3\\n'\n"
    pytest_test = ExecTest("count", "/workspace", "pytest", code)
    assert refusal(pytest_test, UNTOUCHED, [DONE], sandbox) == ""


def test_the_untouched_workspace_is_the_tasks_own() -> None:
    task = builtin_task("inventory_json_to_csv")
    snap = untouched_workspace(task, Bubblewrap())
    assert snap.files and all(not name.endswith(".csv") for name in snap.files)


def test_a_refused_llm_test_gives_way_to_checks_that_must_fail_too(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path)  # the seed's recorded rollouts left empty workspaces
    task_id = ctx.splits.coreset[0]
    answer = json.dumps({"kind": "shell", "code": "exit 0\n", "rationale": "always fine"})
    upstream = ReplayUpstream([reply(answer)])
    with search_account(ctx, 0, upstream) as account:
        test, note = write_test(ctx, task_id, account)
    assert note == (
        f"llm synthesizer: {task_id}: its test was refused: {VACUOUS}; using the offline checks"
    )
    assert isinstance(test, SynthTest)
    # no seed rollout made the instruction's outputs: the instruction's checks alone, which
    # the untouched workspace fails (improvers/testsynth/gate.py:gated)
    assert not test.unscorable and test.checks
    assert {c.kind for c in test.checks} == {INSTRUCTION}
