"""Carriers that end or rewrite the verifier's pytest from code the agent wrote: each passed
the official verifier with a wrong solution before the grader required its own plugin's
report and moved the agent's hook files aside; each must fail now, while the right solution
still passes the same verifier."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.loader import load_task
from harnesspro.tasks.runtime import run_steps
from harnesspro.tasks.verify import VerifierResult, run_verifier
from tests.test_tasks_loader import harbor_task

TESTS = """import importlib.util
import os


def load():
    spec = importlib.util.spec_from_file_location("solution", "/app/solution.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_exists():
    assert os.path.exists("/app/solution.py")


def test_add():
    assert load().add(2, 3) == 5


def test_mul():
    assert load().mul(2, 3) == 6
"""
REWARD = (
    "if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; "
    "else echo 0 > /logs/verifier/reward.txt; fi\n"
)
SCRIPTS = {
    # Harbor's usual script: the tests stay in /tests, pytest runs from the working directory.
    "harbor": "#!/bin/bash\npytest /tests/test_outputs.py -rA\n" + REWARD,
    # The tests copied next to the agent's files: pytest's rootdir is the working directory.
    "copied": "#!/bin/bash\ncp /tests/test_outputs.py /app/\n"
    + "cd /app && pytest test_outputs.py -rA\n"
    + REWARD,
    # The script puts the working directory on the interpreter's path itself.
    "pythonpath": "#!/bin/bash\nexport PYTHONPATH=/app\npytest /tests/test_outputs.py -rA\n"
    + REWARD,
}
RIGHT = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
WRONG = "def add(a, b):\n    return 0\n\n\ndef mul(a, b):\n    return 0\n"
EXIT_AT_IMPORT = 'import os, sys\nif "pytest" in sys.modules:\n    os._exit(0)\n'
PASSING_REPORTS = """import _pytest.reports as reports

made = reports.TestReport.__init__


def passing(self, *args, **kwargs):
    made(self, *args, **kwargs)
    if self.outcome == "failed":
        self.outcome, self.longrepr = "passed", None


reports.TestReport.__init__ = passing
"""
CONFTEST = """import pytest


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome, report.longrepr = "passed", None
"""
HONEST_FAILURE = "reward 0 from reward.txt"
"""The hook file never reached pytest: the wrong solution failed the tests themselves."""
# carrier -> (test script, files the agent leaves in /app, the verdict's reason)
CARRIERS = {
    "import-time exit": (
        "harbor",
        {"solution.py": EXIT_AT_IMPORT + WRONG},
        "pytest ended without the grader's report",
    ),
    "rewritten outcome": (
        "harbor",
        {"solution.py": PASSING_REPORTS + WRONG},
        "test_outputs.py::test_add::call raised but was reported as passed",
    ),
    "conftest.py": ("copied", {"solution.py": WRONG, "conftest.py": CONFTEST}, HONEST_FAILURE),
    "pytest.ini": (
        "copied",
        {"solution.py": WRONG, "pytest.ini": "[pytest]\naddopts = --co\n"},
        HONEST_FAILURE,
    ),
    "sitecustomize.py": (
        "pythonpath",
        {"solution.py": WRONG, "sitecustomize.py": PASSING_REPORTS},
        HONEST_FAILURE,
    ),
}


def verdict(tmp_path: Path, script: str, files: dict[str, str]) -> VerifierResult:
    folder = harbor_task(tmp_path / "suite", name=f"carrier_{script}", test=SCRIPTS[script])
    (folder / "tests" / "test_outputs.py").write_text(TESTS)
    task = load_task(folder)
    steps = [f"printf %s {shlex.quote(text)} > /app/{name}" for name, text in files.items()]
    layout = run_steps(task, steps, tmp_path / "run", Bubblewrap())
    return run_verifier(task, layout, Bubblewrap())


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
def test_a_carrier_does_not_pass_a_wrong_solution(tmp_path: Path, carrier: str) -> None:
    script, files, reason = CARRIERS[carrier]
    result = verdict(tmp_path, script, files)
    assert not result.passed, result.reason
    assert reason in result.reason


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_the_right_solution_passes_every_script(tmp_path: Path, script: str) -> None:
    result = verdict(tmp_path, script, {"solution.py": RIGHT})
    assert result.passed, (result.reason, result.output)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_wrong_solution_fails_every_script(tmp_path: Path, script: str) -> None:
    result = verdict(tmp_path, script, {"solution.py": WRONG})
    assert not result.passed and "2 failed" in result.output, result.output
