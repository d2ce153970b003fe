"""Loading Harbor and Terminal-Bench task folders, skipping malformed ones, and `tasks validate`."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from rich.console import Console

from harnesspro.cli.tasks import register
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.checktask import validate_task
from harnesspro.tasks.loader import (
    TaskError,
    load_suite,
    load_task,
    reference_steps,
    scan_suite,
    task_files,
)
from harnesspro.tasks.reward import read_rewards, reward_of

HARBOR_TEST = """#!/bin/bash
if [ "$(cat /app/out.txt 2>/dev/null)" = hello ]; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
"""


def harbor_task(root: Path, name: str = "hello_harbor", test: str = HARBOR_TEST) -> Path:
    folder = root / name
    (folder / "tests").mkdir(parents=True)
    (folder / "solution").mkdir()
    (folder / "environment").mkdir()
    (folder / "task.toml").write_text(
        '[metadata]\ncategory = "demo"\ndifficulty = "easy"\n'
        "[agent]\ntimeout_sec = 30.0\n[verifier]\ntimeout_sec = 20.0\n"
    )
    (folder / "instruction.md").write_text("Write `hello` to /app/out.txt.\n")
    (folder / "environment" / "Dockerfile").write_text("FROM python:3.11-slim\nWORKDIR /app\n")
    (folder / "tests" / "test.sh").write_text(test)
    (folder / "solution" / "solve.sh").write_text(
        "#!/bin/bash\n# write it\n\necho hello > out.txt\n"
    )
    return folder


def terminal_bench_task(root: Path, name: str = "hello_tb") -> Path:
    folder = root / name
    (folder / "tests").mkdir(parents=True)
    (folder / "task.yaml").write_text(
        "instruction: |\n  Write `hello` to /app/out.txt.\ndifficulty: easy\ncategory: demo\n"
        "max_agent_timeout_sec: 30\nmax_test_timeout_sec: 20\n"
    )
    (folder / "Dockerfile").write_text(
        "FROM ghcr.io/laude-institute/t-bench/python-3-13:20250620\nWORKDIR /app\n"
    )
    (folder / "tests" / "expected.txt").write_text("hello\n")
    (folder / "run-tests.sh").write_text('#!/bin/bash\ncmp /app/out.txt "$TEST_DIR/expected.txt"\n')
    (folder / "solution.sh").write_text("#!/bin/bash\necho hello > /app/out.txt\n")
    return folder


def test_harbor_task_loads_with_workdir_from_the_dockerfile(tmp_path: Path) -> None:
    task = load_task(harbor_task(tmp_path))
    assert (task.id, task.workdir, task.category, task.difficulty) == (
        "hello_harbor",
        "/app",
        "demo",
        "easy",
    )
    assert task.instruction == "Write `hello` to /app/out.txt."
    assert task.timeout_s == 30.0
    files = task_files(task)
    assert (files.layout, files.test_script, files.verifier_timeout_s) == (
        "harbor",
        "/tests/test.sh",
        20.0,
    )
    assert reference_steps(task) == ["echo hello > out.txt"]


def test_terminal_bench_task_loads(tmp_path: Path) -> None:
    task = load_task(terminal_bench_task(tmp_path))
    assert (task.workdir, task.category, task.timeout_s) == ("/app", "demo", 30.0)
    assert task.instruction == "Write `hello` to /app/out.txt."
    files = task_files(task)
    assert files.layout == "terminal-bench"
    assert files.test_script == "/tests/run-tests.sh"
    assert reference_steps(task) == ["echo hello > /app/out.txt"]


def test_harnesspro_section_workdir_wins_over_the_dockerfile(tmp_path: Path) -> None:
    folder = harbor_task(tmp_path)
    with (folder / "task.toml").open("a") as toml:
        toml.write('[harnesspro]\nworkdir = "/workspace"\n')
    assert load_task(folder).workdir == "/workspace"
    (folder / "environment" / "Dockerfile").unlink()
    assert load_task(harbor_task(tmp_path, "no_dockerfile")).workdir == "/app"
    (tmp_path / "no_dockerfile" / "environment" / "Dockerfile").unlink()
    assert load_task(tmp_path / "no_dockerfile").workdir == "/workspace"


@pytest.mark.parametrize(
    ("breakage", "named_file", "reason"),
    [
        (lambda f: (f / "instruction.md").unlink(), "instruction.md", "missing"),
        (lambda f: (f / "task.toml").write_text("version = = 1\n"), "task.toml", "not valid TOML"),
        (lambda f: (f / "instruction.md").write_text("  \n"), "instruction.md", "empty"),
        (lambda f: (f / "tests" / "test.sh").unlink(), "test.sh", "missing"),
        (lambda f: (f / "task.toml").unlink(), "", "neither task.toml"),
    ],
)
def test_malformed_folders_are_reported_with_file_and_reason_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], breakage, named_file: str, reason: str
) -> None:
    harbor_task(tmp_path, "good")
    breakage(harbor_task(tmp_path, "broken"))
    tasks, problems = scan_suite(tmp_path)
    assert [t.id for t in tasks] == ["good"]
    assert len(problems) == 1 and named_file in str(problems[0]) and reason in str(problems[0])
    assert [t.id for t in load_suite(str(tmp_path))] == ["good"]
    assert f"skipping task: {problems[0]}" in capsys.readouterr().err


def test_bad_terminal_bench_yaml_is_reported(tmp_path: Path) -> None:
    folder = terminal_bench_task(tmp_path)
    (folder / "task.yaml").write_text("difficulty: easy\n")
    with pytest.raises(TaskError, match="task.yaml: no `instruction`"):
        load_task(folder)
    (folder / "task.yaml").write_text("instruction: [unclosed\n")
    with pytest.raises(TaskError, match="not valid YAML"):
        load_task(folder)


def test_read_reward_formats(tmp_path: Path) -> None:
    assert reward_of(*read_rewards(tmp_path)) == (None, "no reward file")
    (tmp_path / "reward.json").write_text('{"reward": 0.5}')
    assert reward_of(*read_rewards(tmp_path)) == (0.5, "reward.json")
    (tmp_path / "reward.txt").write_text("1\n")
    assert reward_of(*read_rewards(tmp_path)) == (1.0, "reward.txt")
    (tmp_path / "reward.txt").write_text("yes\n")
    assert reward_of(*read_rewards(tmp_path)) == (None, "reward.txt")


@pytest.mark.parametrize("make", [harbor_task, terminal_bench_task])
def test_validate_runs_reference_and_do_nothing_in_the_sandbox(tmp_path: Path, make) -> None:
    result = validate_task(load_task(make(tmp_path)), Bubblewrap())
    assert result.status == "ok", result
    assert result.idle is not None and result.idle.reward == 0.0
    assert result.reference is not None and result.reference.passed


def test_validate_flags_a_verifier_that_passes_doing_nothing(tmp_path: Path) -> None:
    lenient = "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n"
    result = validate_task(load_task(harbor_task(tmp_path, test=lenient)), Bubblewrap())
    assert result.status == "invalid" and "doing nothing passes" in result.reason


def test_validate_blames_the_runner_for_a_missing_tool(tmp_path: Path) -> None:
    broken = "#!/bin/bash\nno-such-tool --check\necho 0 > /logs/verifier/reward.txt\n"
    result = validate_task(load_task(harbor_task(tmp_path, test=broken)), Bubblewrap())
    # Found from the script's text before anything ran: no verifier output was needed.
    assert result.status == "unrunnable" and result.idle is None
    assert "its test script calls `no-such-tool`" in result.reason


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harnesspro")
    handlers = register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return handlers[args.command](args, Console(width=200))


def test_tasks_validate_command_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite"
    harbor_task(suite)
    terminal_bench_task(suite)
    assert run_cli(["tasks", "validate", str(suite)]) == 0
    assert "2 ok" in capsys.readouterr().out
    assert run_cli(["tasks", "validate", str(suite / "hello_tb")]) == 0
    (suite / "not_a_task").mkdir()
    assert run_cli(["tasks", "validate", str(suite)]) == 1
    assert "malformed" in capsys.readouterr().out
    assert run_cli(["tasks", "validate", str(tmp_path / "absent")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "absent: no such folder" in err


def test_a_task_without_reference_is_unproven_until_a_recorded_rollout_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harnesspro.core.ledger import Ledger
    from harnesspro.core.records import RolloutResult, RolloutSpec, Usage

    suite = tmp_path / "suite"
    harbor_task(suite)
    folder = harbor_task(suite, "no_reference")
    (folder / "solution" / "solve.sh").unlink()
    result = validate_task(load_task(folder), Bubblewrap())
    assert result.status == "unproven" and result.reference is None
    assert run_cli(["tasks", "validate", str(suite)]) == 0
    out = capsys.readouterr().out
    assert "1 ok, 1 unproven" in out and "verifiers shown to pass: 1 (1 by reference)" in out
    assert run_cli(["tasks", "validate", "--require-reference", str(suite)]) == 1
    capsys.readouterr()
    # A run folder whose ledger holds an officially passed rollout of the task proves it.
    run = tmp_path / "run"
    run.mkdir()
    passed = RolloutResult("k", "ok", Usage(), 0.0, 1.0, 1, True, "", "", {})
    ledger = Ledger(run / "ledger.sqlite")
    ledger.record_rollout(RolloutSpec("k", "c000", "no_reference", 0, 0), passed, "rollouts/k")
    ledger.close()
    assert (
        run_cli(["tasks", "validate", "--require-reference", "--proof", str(run), str(suite)]) == 0
    )
    out = capsys.readouterr().out
    assert "2 ok" in out and "(1 by recorded rollout, 1 by reference); unproven: 0" in out
    assert run_cli(["tasks", "validate", "--proof", str(tmp_path / "nope"), str(suite)]) == 2


def test_suites_as_lists_and_terminal_bench_checkouts(tmp_path: Path) -> None:
    harbor_task(tmp_path / "a")
    terminal_bench_task(tmp_path / "checkout" / "tasks")  # a Terminal-Bench 1 repository
    (tmp_path / "checkout" / "README.md").write_text("tasks live under tasks/\n")
    both = load_suite([str(tmp_path / "a"), str(tmp_path / "checkout")])
    assert [(t.id, t.path.parent.name) for t in both] == [
        ("hello_harbor", "a"),
        ("hello_tb", "tasks"),
    ]
    harbor_task(tmp_path / "b")  # the same id in another folder
    with pytest.raises(TaskError, match="task id 'hello_harbor' is in both .*a and .*b"):
        load_suite([str(tmp_path / "a"), str(tmp_path / "b")])
    assert (
        run_cli(
            [
                "tasks",
                "split",
                str(tmp_path / "a"),
                str(tmp_path / "checkout"),
                "--test-fraction",
                "0.5",
                "--seed",
                "0",
                "--out",
                str(tmp_path / "m.json"),
            ]
        )
        == 0
    )
    from harnesspro.tasks.manifest import open_manifest

    suite = [str(tmp_path / "a"), str(tmp_path / "checkout")]
    assert set(open_manifest(tmp_path / "m.json", suite).hashes) == {"hello_harbor", "hello_tb"}
    with pytest.raises(TaskError, match="written for suite"):
        open_manifest(tmp_path / "m.json", str(tmp_path / "a"))
