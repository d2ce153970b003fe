"""Rollouts on external Harbor tasks (termigen-dev) use the same task runtime as validation:
the agent finds the Dockerfile's COPY'd files at their container paths, the verifier runs on
that layout, and its evidence is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harnesspro.core.records import RolloutResult, Task
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.rollout import run_rollout
from harnesspro.run.context import seed_template
from harnesspro.run.folder import RunFolder
from harnesspro.tasks.environment import Environment
from harnesspro.tasks.loader import folder_files, load_suite
from harnesspro.tasks.verify import environment_of
from tests.conftest import inputs_for, shared_dataset

DATASET = shared_dataset("termigen-dev")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not DATASET.is_dir(), reason=f"{DATASET} is absent (shared datasets)"),
]


def copied_elsewhere(task: Task) -> bool:
    """The Dockerfile COPYs data outside the working folder (e.g. /var/log, /evidence)."""
    env = environment_of(task)
    return isinstance(env, Environment) and any(
        not c.dest.startswith(task.workdir) for c in env.copies
    )


def picked() -> list[Task]:
    """Three tasks whose data lands outside their working folder, without pip requirements
    beyond the most common set (keeps the tool environments cached across tests)."""
    tasks = load_suite(str(DATASET)) if DATASET.is_dir() else []
    return [t for t in tasks if copied_elsewhere(t)][:3]


def rollout(task: Task, attempt: int) -> RolloutResult:
    return run_rollout(inputs_for(task, attempt, folder_files(seed_template())))


def source_of(task: Task, container_path: str) -> Path:
    """The file in the task folder that the Dockerfile COPYs to `container_path`."""
    env = environment_of(task)
    assert isinstance(env, Environment)
    for copy in env.copies:
        source = task.path / "environment" / copy.source
        dest = copy.dest.rstrip("/")
        if source.is_file() and container_path in (dest, f"{dest}/{source.name}"):
            return source
        if source.is_dir() and container_path.startswith(dest + "/"):
            return source / container_path[len(dest) + 1 :]
    raise AssertionError(f"{container_path} is not COPY'd by {task.id}'s Dockerfile")


def test_picked_tasks_copy_data_outside_their_working_folder() -> None:
    tasks = picked()
    assert len(tasks) == 3
    for task in tasks:
        outside = [p for p in script_for(task).inputs if not p.startswith(task.workdir)]
        assert outside, task.id


@pytest.mark.parametrize("task", picked(), ids=lambda t: t.id)
def test_seed_rollout_finds_the_copied_files_where_the_dockerfile_puts_them(
    task: Task, tmp_path: Path
) -> None:
    reads: list[tuple[str, str, str]] = []
    for attempt in range(3):
        result = rollout(task, attempt)
        assert result.status == "ok", result.reason
        events = [json.loads(line) for line in result.trajectory.splitlines()]
        calls = [e["command"] for e in events if e["type"] == "tool_call"]
        outputs = [e["output"] for e in events if e["type"] == "tool_result"]
        # The policy looks around 0-3 times before acting (0 when told to be direct).
        assert not outputs or "No such file" not in outputs[0], (calls[0], outputs[0])
        for command, output in zip(calls, outputs, strict=False):
            # Look-around reads of an input file (the final verification uses `head -n 20`).
            for verb in ("cat ", "head -n 40 ", "wc -l "):
                if command.startswith(verb) and " " not in command[len(verb) :]:
                    reads.append((verb, command[len(verb) :], output))
        # The verifier ran on the same layout: doing nothing useful fails with a reason.
        assert result.verifier is not None and result.official_pass is False
        assert result.verifier.reward == 0.0 and result.verifier.reward_files == {
            "reward.txt": "0\n"
        }
        assert "test_outputs.py" in result.verifier.output
        assert result.verifier.reason.startswith("reward 0 from reward.txt: ")
    assert reads, f"no read of an input file in 3 attempts of {task.id}"
    for verb, path, output in reads:
        expected = source_of(task, path).read_text(errors="replace")
        if verb == "wc -l ":
            assert output.split() == [str(expected.count("\n")), path]
        else:
            first = next(line for line in expected.splitlines() if line.strip())
            assert first.strip() in output, path


def test_failed_rollout_keeps_its_verifier_evidence_in_the_run_folder(tmp_path: Path) -> None:
    task = picked()[0]
    result = rollout(task, 0)
    run = RunFolder(tmp_path)
    run.save_rollout(result)
    evidence = run.verifier(result.key)
    assert evidence == result.verifier
    assert evidence is not None and not evidence.passed and evidence.exit_code not in (0, None)
    assert (tmp_path / "rollouts" / result.key / "verifier.json").is_file()


def test_debug_rollout_command_runs_an_external_task_on_its_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harnesspro.cli import main

    task = picked()[0]
    out = tmp_path / "out"
    argv = ["rollout", "--harness", str(seed_template()), "--task", str(task.path)]
    assert main([*argv, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["official_pass"] is False
    assert summary["verifier_reason"].startswith("reward 0 from reward.txt: ")
    assert summary["verifier_reason"] in printed
    assert "test_outputs.py" in json.loads((out / "verifier.json").read_text())["output"]
