"""External tasks whose Dockerfiles install OS packages (termigen-apt-dev, 40 tasks): none is
refused for packages this machine has, and those run their verifier with a do-nothing agent.

A representative subset runs here (distinct package sets, on the common pip requirement set
so no large tool environment is built); `scripts/check_external_tasks.py` runs all 40.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from harnesspro.core.records import Task
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.checktask import validate_task
from harnesspro.tasks.environment import Environment, NeedsContainer
from harnesspro.tasks.loader import load_suite, load_task
from harnesspro.tasks.runtime import input_files, open_task, unrunnable_reason
from harnesspro.tasks.toolenv import normalise
from harnesspro.tasks.verify import environment_of
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


# Tasks whose packages this machine provides but whose Dockerfiles also run shell steps at
# build time: an unquoted `scikit-learn>=1.0` (a redirect), a `python3 -c` that makes a
# database, an `echo ... > /etc/vault/config.json`.
BUILD_STEP_TASKS = [
    "automl_auto_sklearn_hard",
    "etag_conditional_request_caching_hard",
    "vault_seal_unseal_automation_hard_1",
]


def check_built_files(task_id: str, layout_root: Path) -> None:
    """What the build steps made, read on the host independently of the sandbox."""
    if task_id.startswith("etag"):
        db = layout_root / "home/api/product_service/database.db"
        names = sqlite3.connect(db).execute("select name from products order by id").fetchall()
        assert names == [("Widget",), ("Gadget",), ("Doohickey",)]
    elif task_id.startswith("vault"):
        config = json.loads((layout_root / "etc/vault/config.json").read_text())
        assert config["required_shares"] == 3 and len(config["nodes"]) == 3


@pytest.mark.slow
@pytest.mark.parametrize("task_id", BUILD_STEP_TASKS)
def test_a_task_with_build_steps_lays_out_and_runs_its_verifier(
    task_id: str, tmp_path: Path
) -> None:
    task = load_task(DATASET / task_id)
    env = environment_of(task)
    assert isinstance(env, Environment), env
    assert all(host_has(p) for p in env.os_packages), "this test is about host packages"
    assert unrunnable_reason(task) is None
    check_built_files(task_id, open_task(task, tmp_path / "layout").root)
    made = {"etag": "/home/api/product_service/database.db", "vault": "/etc/vault/config.json"}
    for prefix, path in made.items():
        # The scripted policy looks at what the image holds, build-step output included.
        assert not task_id.startswith(prefix) or path in input_files(task)
    result = validate_task(task, Bubblewrap())
    assert result.status == "unproven", result.reason
    assert result.idle is not None and result.idle.reward == 0.0
    assert result.idle.runner_fault is None
    assert "test_outputs.py" in result.idle.output
