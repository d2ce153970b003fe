"""Verifiers get the tools their tests call, from the runner, never from the agent; a runner
that lacks one refuses the task before the run instead of scoring it 0."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harnesspro.core.records import Task
from harnesspro.run.context import runnable_tasks
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks import verify
from harnesspro.tasks.loader import load_task
from harnesspro.tasks.runtime import TaskUnrunnable, open_task, run_steps, unrunnable_reason
from harnesspro.tasks.testscript import called_commands
from harnesspro.tasks.verify import missing_commands, run_verifier, verifier_env

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap")

# The tests pass only if /app/answer.txt says 42; a planted pytest would write reward 1.
TEST_PY = "def test_answer():\n    assert open('/app/answer.txt').read().strip() == '42'\n"
TEST_SH = (
    "#!/bin/bash\npytest /tests/test_outputs.py -rA\n"
    "if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; "
    "else echo 0 > /logs/verifier/reward.txt; fi\n"
)
# The task's own PATH names a folder the agent can write: the classic place to plant a tool.
DOCKERFILE = "FROM ubuntu:24.04\nWORKDIR /app\nRUN mkdir -p /app/bin\nENV PATH=/app/bin:$PATH\n"
PLANTED = "#!/bin/sh\necho planted\necho 1 > /logs/verifier/reward.txt\n"


def pytest_task(root: Path) -> Task:
    """A Harbor task whose test script calls pytest and whose Dockerfile installs none."""
    folder = root / "needs_pytest"
    (folder / "tests").mkdir(parents=True)
    (folder / "environment").mkdir()
    (folder / "task.toml").write_text("[verifier]\ntimeout_sec = 60.0\n")
    (folder / "instruction.md").write_text("Write 42 to /app/answer.txt.\n")
    (folder / "environment" / "Dockerfile").write_text(DOCKERFILE)
    (folder / "tests" / "test.sh").write_text(TEST_SH)
    (folder / "tests" / "test_outputs.py").write_text(TEST_PY)
    return load_task(folder)


def test_the_commands_of_a_test_script_are_read_from_its_text() -> None:
    script = (
        "#!/bin/bash\n# pytest in a comment is not a call\n"
        "export A=1\nB=2 timeout -k 5 10s pytest -q | tee /logs/out && jq . x.json\n"
        'check() { grep -q ok "$1"; }\ncheck /app/out\n'
        "python3 - <<'EOF'\nnotacommand --flag\nEOF\n"
        "if [ -x /app/run.sh ]; then /app/run.sh; else $RUNNER go; fi\n"
    )
    assert called_commands(script) == ("timeout", "pytest", "tee", "jq", "grep", "python3")


def test_pytest_comes_from_a_pinned_tool_environment_when_the_dockerfile_has_none(
    tmp_path: Path,
) -> None:
    task = pytest_task(tmp_path)
    environment = verify.environment_of(task)
    assert not isinstance(environment, verify.NeedsContainer)
    assert environment.requirements == ()
    assert verify.verifier_requirements(task, environment) == (verify.PYTEST,)


@needs_bwrap
def test_an_agent_written_pytest_is_not_what_the_verifier_runs(tmp_path: Path) -> None:
    task = pytest_task(tmp_path)
    sandbox = Bubblewrap()
    plant = f"printf '{PLANTED}' > /app/bin/pytest && chmod +x /app/bin/pytest"
    layout = run_steps(task, [plant, "echo 41 > /app/answer.txt"], tmp_path / "run", sandbox)
    assert (layout.host("/app/bin/pytest")).read_text() == PLANTED
    mounts = layout.mounts(verifier=True)
    path = verifier_env(layout.verifier_environment(), mounts)["PATH"].split(":")
    assert "/app/bin" not in path and path[0].startswith("/.harnesspro/toolenvs/")
    assert missing_commands(task, layout) == ()
    result = run_verifier(task, layout, sandbox)
    assert "planted" not in result.output
    assert "test session starts" in result.output and "FAILED" in result.output
    assert result.reward == 0.0 and not result.passed
    # The same layout with the right answer passes: the real pytest ran the real tests.
    layout.host("/app/answer.txt").write_text("42\n")
    assert run_verifier(task, layout, sandbox).passed


@needs_bwrap
def test_without_pytest_the_task_is_refused_at_start_not_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host_pytest = shutil.which("pytest", path="/usr/local/bin:/usr/bin:/bin")
    if host_pytest:
        pytest.skip(f"the OS itself provides {host_pytest}")
    # The verifiers' pinned environment without pytest in it (iniconfig is one of pytest's
    # own small dependencies), in a cache of this test's own.
    monkeypatch.setattr(verify, "PYTEST", "iniconfig")
    monkeypatch.setenv("HARNESSPRO_CACHE", str(tmp_path / "cache"))
    task = pytest_task(tmp_path)
    reason = unrunnable_reason(task)
    assert reason is not None
    assert reason.startswith("task 'needs_pytest' cannot be graded here: its test script calls")
    assert "`pytest`" in reason and reason.count(".") == 1  # one sentence
    with pytest.raises(TaskUnrunnable, match="cannot be graded here"):
        open_task(task, tmp_path / "run")
    assert runnable_tasks([task]) == ({}, (f"skipping {reason}",))
