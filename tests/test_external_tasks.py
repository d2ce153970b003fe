"""External Harbor tasks (termigen-dev, 60 tasks nobody here wrote) without Docker.

Every task must load and interpret. A representative subset runs its verifier in the sandbox
with a do-nothing agent: one task per pip requirement set (each builds a cached tool
environment) and one per unusual layout (system folders, chmod, a working dir elsewhere than
/workspace). `scripts/check_external_tasks.py` runs all 60.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from harnesspro.core.records import Task
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.checktask import validate_task
from harnesspro.tasks.environment import Environment, NeedsContainer
from harnesspro.tasks.loader import load_suite, scan_suite
from harnesspro.tasks.manifest import ManifestError, build_manifest, verify_manifest
from harnesspro.tasks.toolenv import ensure_toolenv, normalise
from harnesspro.tasks.verify import environment_of, prepare
from tests.conftest import shared_dataset

DATASET = shared_dataset("termigen-dev")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not DATASET.is_dir(), reason=f"{DATASET} is absent (shared datasets)"),
]


def suite() -> list[Task]:
    return load_suite(str(DATASET)) if DATASET.is_dir() else []


def environments() -> dict[str, Environment | NeedsContainer]:
    return {t.id: environment_of(t) for t in suite()}


def in_system_folder(env: Environment) -> bool:
    paths = [c.dest for c in env.copies] + list(env.mkdirs)
    return any(p.startswith(("/etc/", "/usr/")) for p in paths)


FEATURES: dict[str, Callable[[Task, Environment], bool]] = {
    "files under /etc or /usr": lambda t, e: in_system_folder(e),
    "chmod": lambda t, e: bool(e.chmods),
    "workdir /tmp": lambda t, e: t.workdir == "/tmp",
    "workdir /root": lambda t, e: t.workdir == "/root",
    "workdir under /home": lambda t, e: t.workdir.startswith("/home/"),
}


def representative() -> list[Task]:
    """First task of every requirement set and of every unusual layout, by id."""
    envs = environments()
    picked: dict[str, Task] = {}
    for task in suite():
        env = envs[task.id]
        if not isinstance(env, Environment):
            continue
        keys = [f"requirements {normalise(env.requirements)}"]
        keys += [name for name, has in FEATURES.items() if has(task, env)]
        for key in keys:
            picked.setdefault(key, task)
    return sorted({t.id: t for t in picked.values()}.values(), key=lambda t: t.id)


def test_all_sixty_load_and_interpret() -> None:
    tasks, problems = scan_suite(DATASET)
    assert problems == [] and len(tasks) == 60
    envs = environments()
    for task_id, env in envs.items():
        if isinstance(env, NeedsContainer):
            assert env.reason, task_id
    sets = {normalise(e.requirements) for e in envs.values() if isinstance(e, Environment)}
    assert len(sets) >= 2  # several requirement sets: the subset below must cover them all


def requirement_sets(task_ids: set[str] | None = None) -> set[tuple[str, ...]]:
    return {
        normalise(env.requirements)
        for task_id, env in environments().items()
        if isinstance(env, Environment) and (task_ids is None or task_id in task_ids)
    }


def test_representative_subset_covers_every_requirement_set() -> None:
    assert requirement_sets({t.id for t in representative()}) == requirement_sets()
    assert len(representative()) <= 10  # keeps CI time bounded


@pytest.mark.parametrize("task", representative(), ids=lambda t: t.id)
def test_do_nothing_runs_the_verifier_and_gets_reward_0(task: Task) -> None:
    result = validate_task(task, Bubblewrap())
    if result.status == "needs container":
        pytest.fail(f"{task.id} was selected as Docker-free but needs a container: {result}")
    # No reference solutions ship with these tasks: the verifier is not shown to pass.
    assert result.status == "unproven", (
        f"{result.reason}\n{result.idle.output if result.idle else ''}"
    )
    assert result.idle is not None and result.idle.reward == 0.0
    assert result.idle.runner_fault is None
    # The verifier really ran pytest on the task's tests (not an early crash).
    assert "test_outputs.py" in result.idle.output


def test_the_tool_environment_comes_first_in_the_sandbox(tmp_path: Path) -> None:
    task = max(suite(), key=lambda t: len(getattr(environment_of(t), "requirements", ())))
    env = environment_of(task)
    assert isinstance(env, Environment) and "pyyaml" in normalise(env.requirements)
    layout = prepare(task, env, tmp_path)
    script = (
        "command -v pytest python3; python3 -c 'import yaml, pandas; print(pandas.__version__)'"
    )
    result = Bubblewrap().run(["bash", "-c", script], layout.mounts(), dict(layout.env), "/", 60)
    pytest_path, python_path, pandas_version = result.stdout.split()
    tools = ensure_toolenv(env.requirements).bin
    assert (pytest_path, python_path) == (f"{tools}/pytest", f"{tools}/python3")
    assert pandas_version == "2.3.2"


def test_one_changed_byte_in_an_external_task_refuses_the_manifest(tmp_path: Path) -> None:
    tasks = suite()[:3]
    for task in tasks:
        shutil.copytree(task.path, tmp_path / task.id)
    copies = load_suite(str(tmp_path))
    manifest = build_manifest(str(tmp_path), copies, {"test": tuple(t.id for t in copies)}, {})
    verify_manifest(manifest, tmp_path)
    victim = tmp_path / tasks[2].id / "tests" / "test_outputs.py"
    victim.chmod(0o644)
    data = bytearray(victim.read_bytes())
    data[-1] ^= 1
    victim.write_bytes(bytes(data))
    with pytest.raises(ManifestError, match=f"task '{tasks[2].id}' changed"):
        verify_manifest(manifest, tmp_path)
