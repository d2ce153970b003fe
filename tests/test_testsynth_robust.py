"""The offline synthesizer accepts a varied but correct output, rejects a wrong value, never
passes a task vacuously, and reports tasks it cannot check as unscorable."""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harnesspro.core.config import load_config
from harnesspro.core.records import RolloutResult, RolloutSpec, Usage
from harnesspro.evaluation.scoring import freeze_tests
from harnesspro.evolution.score_step import score_pending
from harnesspro.execution.gateway.chatlog import ChatLog
from harnesspro.execution.rollout import write_tree
from harnesspro.improvers.testsynth import facts
from harnesspro.improvers.testsynth.facts import Reading, command_facts, read_instruction
from harnesspro.improvers.testsynth.gate import untouched_workspace
from harnesspro.improvers.testsynth.offline import Check, SeedRollout, SynthTest, score, synthesize
from harnesspro.run.context import RunContext
from harnesspro.run.folder import RunFolder
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.contract import Mount, SandboxResult
from harnesspro.sandbox.snapshot import Snapshot, take
from harnesspro.tasks.loader import builtin_suite_dir, load_suite, reference_steps, workspace_files
from tests.conftest import tiny_config

REPORT = (
    "Write `/workspace/report.json` (an object with the keys `total` and `regions`), "
    "`/workspace/regions.csv` with the header `region,revenue` (the lines in any order) "
    "and `/workspace/notes.txt`."
)
SEED = {
    "report.json": b'{"total": 30, "regions": {"North": 10, "South": 20}}\n',
    "regions.csv": b"region,revenue\nNorth,10\nSouth,20\n",
    "notes.txt": b"two regions\nall paid\n",
}


def synth(instruction: str, workspace: dict[str, bytes], n: int = 3) -> SynthTest:
    return synthesize("t", instruction, "/workspace", [SeedRollout(workspace, "")] * n)


def test_reformatted_correct_output_passes_and_a_wrong_value_fails() -> None:
    test = synth(REPORT, SEED)
    reformatted = {
        # other key order, indentation and line endings: the same JSON object
        "report.json": b'{\r\n  "regions": {"South": 20, "North": 10},\r\n  "total": 30\r\n}',
        # the instruction leaves the row order free; cells padded with spaces
        "regions.csv": b"region , revenue\r\nSouth,20\r\nNorth, 10\r\n",
        # trailing whitespace and no final newline
        "notes.txt": b"two regions   \nall paid",
    }
    assert score(test, reformatted)
    wrong = dict(reformatted, **{"regions.csv": b"region,revenue\nSouth,21\nNorth,10\n"})
    assert not score(test, wrong)
    assert not score(test, dict(reformatted, **{"report.json": b'{"total": 31, "regions": {}}'}))
    swapped = dict(reformatted, **{"notes.txt": b"all paid\ntwo regions\n"})
    assert not score(test, swapped)  # text lines keep their order unless it is free


def test_exact_text_when_the_instruction_fixes_it() -> None:
    instruction = "Write `/workspace/out.txt`; every line ends with a newline, single spaces."
    test = synth(instruction, {"out.txt": b"a 1\nb 2\n"})
    assert score(test, {"out.txt": b"a 1\nb 2\n"})
    assert not score(test, {"out.txt": b"a 1\nb 2"})  # the instruction fixed the newline
    assert not score(test, {"out.txt": b"b 2\na 1\n"})  # and says nothing about free order


def test_python_compares_by_syntax_tree() -> None:
    test = synth("Fix `/workspace/tool.py`.", {"tool.py": b"def f(x):\n    return x + 1\n"})
    assert score(test, {"tool.py": b"# fixed\ndef f(x):  return (x + 1)\n"})
    assert not score(test, {"tool.py": b"def f(x):\n    return x + 2\n"})


def test_a_path_the_instruction_asks_for_must_exist_whatever_the_votes() -> None:
    instruction = "Write `/workspace/report.json` from `/workspace/in.txt`."
    test = synth(instruction, {"in.txt": b"x"})  # no seed rollout wrote it
    assert not score(test, {"in.txt": b"x"})
    assert score(test, {"in.txt": b"x", "report.json": b"{}"})


def test_unscorable_task_has_a_reason_and_passes_nothing() -> None:
    test = synth("Make the program faster.", {"main.py": b"print(1)\n"})
    assert test.checks == () and "names no path" in test.unscorable
    assert not score(test, {"main.py": b"print(1)\n"})
    assert SynthTest.from_json(test.to_json()) == test
    empty = synthesize("t", "Write `/workspace/a.txt`.", "/workspace", [])
    assert "no rollouts" in empty.unscorable and not score(empty, {"a.txt": b"x"})


def test_named_commands_run_in_the_sandbox_and_cannot_be_faked_outside_it() -> None:
    instruction = "Fix `/workspace/calc.py`; its check `python3 /workspace/check.py` fails."
    check = b"import calc, sys\nsys.exit(0 if calc.add(2, 2) == 4 else 1)\n"
    good = {"calc.py": b"def add(a, b):\n    return a + b\n", "check.py": check}
    test = synthesize("t", instruction, "/workspace", [SeedRollout(good, "")] * 3, Bubblewrap())
    exit_check = "exit:python3 /workspace/check.py"
    assert (exit_check, "0") in [(c.aspect, c.value) for c in test.checks]
    assert score(test, good, Bubblewrap())
    # A fake that would pass if run by the driver: it writes outside the working directory
    # and exits 0; in the sandbox the write fails and the content checks still catch it.
    escape = b"open('/tmp/../../hp-escape', 'w')\ndef add(a, b):\n    return a + b\n"
    assert not score(test, {**good, "calc.py": escape}, Bubblewrap())
    assert not Path("/hp-escape").exists()
    broken = {**good, "calc.py": b"def add(a, b):\n    return a - b\n"}
    assert not score(test, broken, Bubblewrap())


class CountingBubblewrap(Bubblewrap):
    """Bubblewrap that counts the commands it runs."""

    runs = 0

    def run(self, *args: Any, **kwargs: Any) -> SandboxResult:
        CountingBubblewrap.runs += 1
        return super().run(*args, **kwargs)


def test_a_command_runs_once_per_distinct_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(facts, "_COMMAND_FACTS", {})
    monkeypatch.setattr(CountingBubblewrap, "runs", 0)
    reading = Reading(
        "/workspace", ("flag",), commands=("test -x /workspace/flag && cat /workspace/flag",)
    )
    sandbox = CountingBubblewrap()
    on = Snapshot({"flag": b"on\n"}, modes={"flag": 0o755})
    first = command_facts(on, reading, sandbox)
    again = command_facts(Snapshot({"flag": b"on\n"}, modes={"flag": 0o755}), reading, sandbox)
    assert CountingBubblewrap.runs == 1 and again == first
    # Any change a command could see runs it again, with its own result: the content, the
    # mode, and the commands themselves.
    off = command_facts(Snapshot({"flag": b"off\n"}, modes={"flag": 0o755}), reading, sandbox)
    plain = command_facts(Snapshot({"flag": b"on\n"}, modes={"flag": 0o644}), reading, sandbox)
    other = replace(reading, commands=("cat /workspace/flag",))
    listed = command_facts(on, other, sandbox)
    assert CountingBubblewrap.runs == 4
    command = reading.commands[0]
    assert first[f"exit:{command}"] == "0" and plain[f"exit:{command}"] == "1"
    assert off[f"stdout:{command}"] != first[f"stdout:{command}"]
    assert listed["exit:cat /workspace/flag"] == "0"


def test_symlinks_and_modes_are_checked() -> None:
    instruction = (
        "Create the symbolic link `/workspace/current` and set the mode of `/workspace/run`."
    )
    right = Snapshot({"run": b"#!/bin/sh\n"}, {"current": "releases/2"}, {"run": 0o755})
    test = synth(instruction, right)
    assert score(test, right)
    assert not score(
        test, Snapshot({"run": b"#!/bin/sh\n"}, {"current": "releases/1"}, {"run": 0o755})
    )
    assert not score(
        test, Snapshot({"run": b"#!/bin/sh\n"}, {"current": "releases/2"}, {"run": 0o644})
    )


BUILTIN = load_suite("builtin")


@pytest.mark.slow
@pytest.mark.parametrize("task", BUILTIN, ids=[t.id for t in BUILTIN])
def test_no_builtin_task_passes_vacuously(task: object) -> None:
    """Seeds that did the reference work give a test the reference passes and doing nothing
    fails (every built-in task is scorable)."""
    from harnesspro.core.records import Task

    assert isinstance(task, Task)
    sandbox = Bubblewrap()
    with tempfile.TemporaryDirectory() as tmp:
        idle = write_tree(Path(tmp) / "idle", workspace_files(task))
        done = write_tree(Path(tmp) / "done", workspace_files(task))
        for step in reference_steps(task):
            sandbox.run(
                ["bash", "-c", step], [Mount(done, task.workdir, True)], {}, task.workdir, 60
            )
        idle_snap = take(idle, sandbox, task.workdir)
        done_snap = take(done, sandbox, task.workdir)
    seed = [SeedRollout(done_snap, "")] * 3
    test = synthesize(task.id, task.instruction, task.workdir, seed, sandbox)
    assert not test.unscorable, test.unscorable
    assert score(test, done_snap, sandbox)
    assert not score(test, idle_snap, sandbox), json.dumps([c.aspect for c in test.checks])


def test_instruction_reading_of_a_builtin_task() -> None:
    """Hand-read: what `release_symlinks` makes checkable."""
    task = next(t for t in BUILTIN if t.id == "release_symlinks")
    reading = read_instruction(task.instruction, task.workdir)
    assert reading.outputs == ("bin", "current") and reading.modes
    assert not reading.strict.rows_free and reading.commands == ()


def test_an_unscorable_task_is_reported_and_left_out_of_scoring(tmp_path: Path) -> None:
    """At the run level: a line for the console, frozen reason, report, and no verdict on its
    rollouts (so it counts in no score), while a scorable task is graded."""
    suite = tmp_path / "suite"
    for source in sorted(builtin_suite_dir().iterdir())[:6]:
        shutil.copytree(source, suite / source.name)
    config = tiny_config(tmp_path, tasks={"suite": str(suite)})
    console = Console(record=True, width=200)
    ctx = RunContext.open(load_config(config), RunFolder(tmp_path / "run"), console)
    ctx.seed()
    vague, plain = ctx.splits.coreset[:2]
    ctx = replace(
        ctx, tasks={**ctx.tasks, vague: replace(ctx.tasks[vague], instruction="Tidy up.")}
    )
    # The plain task's seed rollouts wrote what its instruction asks for (a test must fail on
    # the untouched workspace and pass on a seed rollout: testsynth/gate.py).
    task = ctx.tasks[plain]
    untouched = untouched_workspace(task, Bubblewrap())
    outputs = read_instruction(task.instruction, task.workdir).outputs
    done = {**untouched.files, **{rel: b"done\n" for rel in outputs}}
    for task_id in (vague, plain):
        for attempt in (0, 1):
            key = f"{task_id}-{attempt}"
            work = done if task_id == plain else {"x": b"1"}
            result = RolloutResult(key, "ok", Usage(), 0.01, 1.0, 1, True, "", "", work)
            artifacts = ctx.run.save_rollout(result)
            spec = RolloutSpec(key, "c000", task_id, attempt, 0)
            ctx.ledger.record_rollout(spec, result, artifacts, "coreset")
    ctx = replace(ctx, splits=replace(ctx.splits, coreset=(vague, plain)))
    notes = freeze_tests(ctx, ctx.splits.coreset)
    score_pending(ctx)
    passes = ctx.ledger.rollouts().set_index("key")["pass"]
    assert passes[[f"{vague}-0", f"{vague}-1"]].isna().all()
    assert passes[[f"{plain}-0", f"{plain}-1"]].notna().all()
    assert len(notes) == 1
    assert notes[0].startswith(f"unscorable: {vague}: the instruction names no path")
    report = json.loads((ctx.run.reports() / "synth_tests.json").read_text())
    assert list(report["unscorable"]) == [vague]


def test_a_script_in_another_language_passes_when_it_behaves_the_same() -> None:
    instruction = (
        "Create an executable script `/workspace/greet` (any language) that greets loudly. "
        "Then save the standard output of `/workspace/greet --loud` to `/workspace/out.txt`."
    )

    def workspace(script: bytes, out: bytes) -> Snapshot:
        return Snapshot({"greet": script, "out.txt": out}, modes={"greet": 0o755})

    seed = workspace(b"#!/bin/bash\necho HI\n", b"HI\n")
    sandbox = Bubblewrap()
    test = synthesize("t", instruction, "/workspace", [SeedRollout(seed, "")] * 3, sandbox)
    python = workspace(b"#!/usr/bin/env python3\nprint('HI')\n", b"HI\n")
    assert score(test, python, sandbox)
    assert not score(test, workspace(b"#!/bin/bash\necho HO\n", b"HI\n"), sandbox)


def _submitted(output: str) -> str:
    events = [{"type": "tool_result", "output": output}, {"type": "submit", "content": "done"}]
    return "\n".join(json.dumps(e) for e in events)


CALL = {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "type": "function",
        "function": {"name": "bash", "arguments": '{"command": "./report"}'}}]}  # fmt: skip


def _chat(output: str, answered: bool = True) -> str:
    """The gateway's chat log of a command whose output was `output`, then a final answer
    (`answered`) or one more tool call."""
    log = ChatLog()
    start = [{"role": "system", "content": "agent"}, {"role": "user", "content": REPORT}]
    log.add("t", {"messages": start}, CALL)
    shown = {"role": "tool", "tool_call_id": "1", "content": output}
    log.add("t", {"messages": [*start, CALL, shown]}, {"role": "assistant", "content": "done"}
            if answered else CALL)  # fmt: skip
    return "\n".join(log.lines)


@pytest.mark.parametrize(("judged", "blind"), [(True, True), (False, True), (True, False)])
def test_a_pass_needs_the_trajectory_judgement_where_the_test_sees_no_value(
    tmp_path: Path, judged: bool, blind: bool
) -> None:
    """Three rollouts with the same right files: the one that answered after a clean command
    passes; the one that never answered and the one whose last command failed (as the
    gateway's chat log shows; each harness trajectory claims a clean submission) pass, when
    the frozen test checks only that the outputs exist (`blind`), only with
    `evolution.judge_trajectory` false; when it compares the files' values, the values
    decide."""
    suite = tmp_path / "suite"
    for source in sorted(builtin_suite_dir().iterdir())[:6]:
        shutil.copytree(source, suite / source.name)
    evolution = {"epochs": 1, "rollouts_per_task": 2, "judge_trajectory": judged}
    evolution |= {"consensus": False} if blind else {}
    config = tiny_config(tmp_path, tasks={"suite": str(suite)}, evolution=evolution)
    ctx = RunContext.open(load_config(config), RunFolder(tmp_path / "run"), Console(width=200))
    ctx.seed()
    task_id = ctx.splits.coreset[0]
    ctx = replace(
        ctx,
        tasks={**ctx.tasks, task_id: replace(ctx.tasks[task_id], instruction=REPORT)},
        splits=replace(ctx.splits, coreset=(task_id,)),
    )
    chats = {
        "c000-0": _chat("ok"),
        "c000-1": _chat("ok"),
        "c001-0": _chat("ok"),
        "c001-1": _chat("ok", answered=False),  # never answered
        "c001-2": _chat("bash: jq: command not found"),
    }
    for key, chat in chats.items():
        candidate, attempt = key.split("-")
        trajectory = _submitted("ok")  # what each harness claims
        result = RolloutResult(
            key, "ok", Usage(), 0.01, 1.0, 1, True, trajectory, "", SEED, chat_log=chat
        )
        spec = RolloutSpec(key, candidate, task_id, int(attempt), 0)
        ctx.ledger.record_rollout(spec, result, ctx.run.save_rollout(result), "coreset")
        if key == "c000-1" and blind:
            reading = read_instruction(REPORT, "/workspace")
            test = SynthTest(task_id, reading, (Check("exists:report.json", "True"),))
            path = ctx.run.synth_test(task_id)
            path.parent.mkdir(parents=True)
            path.write_text(test.to_json())
            ctx.ledger.freeze_test(task_id, test.sha256, str(path.relative_to(ctx.run.root)))
        elif key == "c000-1":
            # written from the seed's two rollouts, as a run does
            freeze_tests(ctx, ctx.splits.coreset)
    score_pending(ctx)
    passes = ctx.ledger.rollouts().set_index("key")["pass"].astype(bool).to_dict()
    assert passes == {
        "c000-0": True,
        "c000-1": True,
        "c001-0": True,
        "c001-1": not (judged and blind),
        "c001-2": not (judged and blind),
    }
