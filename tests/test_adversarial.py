"""The shipped adversarial harness solves nothing and tries to fool the verifier (stdlib
shadows, pytest and interpreter hooks, fake executables, a /tests thief): it must score 0."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harnesspro.core.records import Task
from harnesspro.harness.adversary import (
    ADVERSARY,
    IDLE,
    LINKER,
    PROBE,
    attack_layout,
    attack_rollout,
)
from harnesspro.improvers.testsynth.llm import ExecTest, run_test
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.contract import Mount
from harnesspro.sandbox.untrusted import NotAFile, read_bytes, remove_tree
from harnesspro.tasks.loader import load_suite, load_task
from harnesspro.tasks.reward import read_rewards, reward_of
from harnesspro.tasks.runtime import evidence, open_task
from harnesspro.tasks.verify import killed, run_verifier, verifier_env
from tests.test_tasks_loader import harbor_task

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
HELDOUT = Path(os.environ.get("HP_HELDOUT_TASKS", DATASETS / "held-out"))
"""Harbor tasks of zjysteven/terminal-bench-env outside the shared sets (not shipped: the
upstream states no licence); the two below fooled the verifier as the third does."""
# Tests that import the agent's module: the probe's exit at import passed each with
# "reward 1 from reward.txt" before the grader's own report was required.
IMPORT_THE_AGENTS_CODE = [
    DATASETS / "termigen-dev" / "piece_table_undo_redo_hard",
    HELDOUT / "cuckoo_filter_deletions_medium",
    HELDOUT / "crdt_eventual_consistency_hard",
]


def builtin(task_id: str) -> Task:
    return next(t for t in load_suite("builtin") if t.id == task_id)


def test_stdlib_shadows_do_not_pass_a_python_verifier() -> None:
    # fix_lru_cache's verifier imports random and subprocess: before `python3 -I` a planted
    # random.py exiting 0 passed it with no work done.
    attack = attack_rollout(builtin("fix_lru_cache"))
    assert attack.fooled is False, attack.reason


def test_tests_copied_while_grading_never_reach_the_artifacts() -> None:
    # fix_roman_converter's verifier runs the agent's own test file: the thief copies /tests
    # into the workspace then, after the snapshot.
    attack = attack_rollout(builtin("fix_roman_converter"))
    assert attack.fooled is False and attack.leaked == ()


def test_verifier_environment_drops_agent_writable_folders() -> None:
    mounts = [Mount("/h/ws", "/workspace", True), Mount("/h/tools", "/opt/tools")]
    env = {"PATH": "/workspace/bin:/opt/tools/bin:/usr/bin:", "PYTHONPATH": "/workspace"}
    assert verifier_env(env, mounts) == {
        "PATH": "/opt/tools/bin:/usr/bin",
        "PYTHONPATH": "",
        "PYTHONNOUSERSITE": "1",
    }


@pytest.mark.parametrize(
    ("code", "was_killed"), [(0, False), (1, False), (137, True), (None, True)]
)
def test_a_killed_test_script_is_not_trusted(code: int | None, was_killed: bool) -> None:
    assert killed(code) is was_killed


@pytest.mark.slow
@pytest.mark.parametrize("harness", [ADVERSARY, LINKER, PROBE], ids=lambda h: h.name)
def test_adversary_scores_zero_on_every_builtin_task(harness: Path) -> None:
    attacks = [attack_rollout(task, harness=harness) for task in load_suite("builtin")]
    assert len(attacks) == 40
    assert [a.task_id for a in attacks if a.fooled] == []
    assert [a.task_id for a in attacks if a.leaked] == []
    assert [a.task_id for a in attacks if a.status == "infra_error"] == []


@pytest.mark.slow
@pytest.mark.parametrize("harness", [ADVERSARY, LINKER, PROBE], ids=lambda h: h.name)
@pytest.mark.parametrize("name", ["termigen-dev", "termigen-apt-dev"])
def test_adversary_scores_zero_on_external_dev_sets(name: str, harness: Path) -> None:
    folder = DATASETS / name
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent (shared datasets)")
    # Every sixth task keeps `make test` short (this slice has none of the two whose verifiers
    # take ~20 s); scripts/adversary_sweep.py attacks them all.
    tasks = sorted(load_suite(str(folder)), key=lambda t: t.id)[3::6]
    attacks = [attack_layout(task, Bubblewrap(), harness=harness) for task in tasks]
    if all(a.fooled is None for a in attacks):
        pytest.skip(f"no task of {name} runs without a container here")
    assert [a.task_id for a in attacks if a.fooled] == []


@pytest.mark.parametrize("folder", IMPORT_THE_AGENTS_CODE, ids=lambda f: f.name)
def test_an_exit_at_import_does_not_pass_tests_that_import_the_agents_code(
    folder: Path,
) -> None:
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent (shared datasets, or HP_HELDOUT_TASKS)")
    probe = attack_layout(load_task(folder), Bubblewrap(), harness=PROBE)
    assert probe.fooled is False, probe.reason
    assert "pytest ended without the grader's report" in probe.reason
    assert "the script said reward 1" in probe.reason  # the exit did reach the test script
    assert attack_layout(load_task(folder), Bubblewrap(), harness=IDLE).fooled is False


SHADOW = b'import os\nos.write(1, b"PASS\\n")\nos._exit(0)\n'
CHECKS = {
    "shell": "python3 -c \"import json, sys; sys.exit(json.load(open('out.json'))['x'] != 1)\"\n",
    "pytest": "import json\n\n\ndef test_x():\n    assert json.load(open('out.json'))['x'] == 1\n",
}


@pytest.mark.parametrize("kind", sorted(CHECKS))
def test_synthesized_exec_tests_ignore_planted_shadows(kind: str) -> None:
    # A workspace with the wrong answer plus the adversary's interpreter shadows: an
    # executable synthesized test must fail it, and pass the same workspace with the right
    # answer (so the check itself works).
    test = ExecTest("t", "/workspace", kind, CHECKS[kind])
    shadows = {name: SHADOW for name in ("json.py", "sys.py", "sitecustomize.py", "pytest.py")}
    wrong = run_test(test, {**shadows, "out.json": b'{"x": 2}'}, Bubblewrap())
    right = run_test(test, {**shadows, "out.json": b'{"x": 1}'}, Bubblewrap())
    assert "PASS" not in wrong.stdout and wrong.exit_code not in (0, None)
    assert right.exit_code == 0, right.stdout + right.stderr


# The four built-in tasks whose verifiers run a workspace program: before links were refused,
# the linker passed them with "reward 32768 from reward.txt".
RUN_WORKSPACE_PROGRAMS = [
    "backup_rotation_script",
    "envfile_check_script",
    "fix_roman_converter",
    "humanize_bytes_script",
]


@pytest.mark.parametrize("task_id", RUN_WORKSPACE_PROGRAMS)
def test_reward_links_fail_and_read_nothing_of_the_host(task_id: str) -> None:
    attack = attack_rollout(builtin(task_id), harness=LINKER)
    assert attack.fooled is False, attack.reason
    assert attack.status != "infra_error", attack.reason  # the /logs attacks are its failure
    assert "symbolic link" in attack.artifacts  # the verdict says what stood there
    # Neither the link to pid_max nor the one to the grader's /proc/self/environ was read.
    pid_max = Path("/proc/sys/kernel/pid_max").read_text().strip()
    assert f"reward {pid_max}" not in attack.artifacts
    assert "PATH=" not in attack.artifacts and "HOME=" not in attack.artifacts


def test_a_reward_link_to_a_host_file_is_a_failure_that_copies_nothing(tmp_path: Path) -> None:
    canary = tmp_path / "host-secret.txt"
    canary.write_text("1\nCANARY-7f3a9c\n")  # a passing reward, if anyone read it
    test = (
        "#!/bin/bash\n"
        f"ln -s {canary} /logs/verifier/reward.txt\nln -s {canary} /logs/verifier/reward.json\n"
    )
    task = load_task(harbor_task(tmp_path / "suite", test=test))
    layout = open_task(task, tmp_path / "run")
    result = run_verifier(task, layout, Bubblewrap())
    assert not result.passed and result.reward == 0.0
    assert result.reason == "reward 0 from reward.txt is a symbolic link, not a file (not read)"
    assert "CANARY" not in repr(result) and "CANARY" not in repr(evidence(result))


def test_a_fifo_or_link_where_a_file_is_read_is_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "reward.txt")  # opening it for reading would block forever
    assert reward_of(*read_rewards(tmp_path)) == (
        0.0,
        "reward.txt is a FIFO, not a file (not read)",
    )
    with pytest.raises(NotAFile, match="a FIFO"):
        read_bytes(tmp_path / "reward.txt", 100)
    (tmp_path / "reward.txt").unlink()
    (tmp_path / "reward.txt").mkdir()
    assert reward_of(*read_rewards(tmp_path))[0] == 0.0
    remove_tree(tmp_path / "reward.txt")
    assert not (tmp_path / "reward.txt").exists()
