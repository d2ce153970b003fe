"""External tasks whose Dockerfiles install OS packages (termigen-apt-dev, 40 tasks): none is
refused for packages this machine has, and those run their verifier with a do-nothing agent.

A representative subset runs here (distinct package sets, on the common pip requirement set
so no large tool environment is built); `scripts/check_external_tasks.py` runs all 40.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from harnesspro.records import Task
from harnesspro.sandbox import Bubblewrap
from harnesspro.tasks.dockerfile import Environment, NeedsContainer
from harnesspro.tasks.loader import load_suite
from harnesspro.tasks.toolenv import normalise
from harnesspro.tasks.verify import environment_of, validate_task
from tests.conftest import shared_dataset

DATASET = shared_dataset("termigen-apt-dev")
COMMON = ("pandas==2.3.2", "pytest==8.4.1", "scipy==1.16.1")

pytestmark = [
    pytest.mark.skipif(not DATASET.is_dir(), reason=f"{DATASET} is absent (shared datasets)"),
    pytest.mark.skipif(shutil.which("dpkg") is None, reason="needs a Debian/Ubuntu host (dpkg)"),
]


def host_has(package: str) -> bool:
    """Independent of the code under test: `dpkg -s` of one package."""
    done = subprocess.run(["dpkg", "-s", package], capture_output=True, text=True)
    return done.returncode == 0 and "Status: install ok installed" in done.stdout


def suite() -> list[Task]:
    return load_suite(str(DATASET)) if DATASET.is_dir() else []


def test_no_task_is_refused_for_os_packages() -> None:
    tasks = suite()
    assert len(tasks) == 40
    for task in tasks:
        env = environment_of(task)
        if isinstance(env, NeedsContainer):
            # Only steps beyond package installs (a `curl | sh`, a download, a redirect).
            assert "apt-get install of" not in env.reason, (task.id, env.reason)


def provided_here() -> list[Task]:
    """Tasks whose OS packages this machine has, one per package set, common pip set only."""
    picked: dict[tuple[str, ...], Task] = {}
    for task in suite():
        env = environment_of(task)
        if not isinstance(env, Environment) or normalise(env.requirements) != COMMON:
            continue
        if all(host_has(p) for p in env.os_packages):
            picked.setdefault(tuple(sorted(env.os_packages)), task)
    return sorted(picked.values(), key=lambda t: t.id)[:5]


@pytest.mark.slow
@pytest.mark.parametrize("task", provided_here(), ids=lambda t: t.id)
def test_a_task_whose_packages_the_host_has_runs_its_verifier(task: Task) -> None:
    result = validate_task(task, Bubblewrap())
    assert result.status == "unproven", result.reason  # no reference solutions ship
    assert result.idle is not None and result.idle.reward == 0.0
    assert result.idle.runner_fault is None
    assert "test_outputs.py" in result.idle.output
