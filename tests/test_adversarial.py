"""The shipped adversarial harness solves nothing and tries to fool the verifier (stdlib
shadows, pytest and interpreter hooks, fake executables, a /tests thief): it must score 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from harnesspro.records import Task
from harnesspro.sandbox import Bubblewrap, Mount
from harnesspro.tasks.adversary import attack_layout, attack_rollout
from harnesspro.tasks.loader import load_suite
from harnesspro.tasks.verify import killed, verifier_env
from harnesspro.testsynth.llm import ExecTest, run_test

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"


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
def test_adversary_scores_zero_on_every_builtin_task() -> None:
    attacks = [attack_rollout(task) for task in load_suite("builtin")]
    assert len(attacks) == 40
    assert [a.task_id for a in attacks if a.fooled] == []
    assert [a.task_id for a in attacks if a.leaked] == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["termigen-dev", "termigen-apt-dev"])
def test_adversary_scores_zero_on_external_dev_sets(name: str) -> None:
    folder = DATASETS / name
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent (shared datasets)")
    # Every sixth task keeps `make test` short (this slice has none of the two whose verifiers
    # take ~20 s); scripts/adversary_sweep.py attacks them all.
    tasks = sorted(load_suite(str(folder)), key=lambda t: t.id)[3::6]
    attacks = [attack_layout(task, Bubblewrap()) for task in tasks]
    if all(a.fooled is None for a in attacks):
        pytest.skip(f"no task of {name} runs without a container here")
    assert [a.task_id for a in attacks if a.fooled] == []


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
