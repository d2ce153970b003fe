"""The grader's verdict on its pytest plugin's reports, the clean-workspace count of tests that
could not be collected, and the agent's hook files moved aside and back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harnesspro.sandbox.contract import Mount
from harnesspro.tasks.baseline import count_test_functions
from harnesspro.tasks.hookfiles import clean_hooks, hide_hooks, restore_hooks
from harnesspro.tasks.pytest_grader import (
    PLUGIN_DIR,
    Baseline,
    PytestRun,
    judge,
    parse_report,
    read_reports,
)

WRITABLE = ("/app", "/root")


def run(outcomes: dict[str, str], **changes: object) -> PytestRun:
    fields: dict[str, object] = {
        "collected": len(outcomes),
        "broken": (),
        "outcomes": outcomes,
        "rewritten": (),
        "hook_files": ("/opt/env/site-packages/_pytest/runner.py",),
        "startup_files": (),
        "replaced": (),
        "inipath": "",
        "collect_only": False,
    }
    return PytestRun(**{**fields, **changes})  # type: ignore[arg-type]


PASS3 = {"t::a": "passed", "t::b": "passed", "t::c": "passed"}


@pytest.mark.parametrize(
    ("runs", "baseline", "reason"),
    [
        ([run(PASS3)], Baseline(3), ""),
        ([], Baseline(3), "without the grader's report"),
        ([None], Baseline(3), "without finishing the grader's report"),
        ([run({})], Baseline(0), "no test ran"),
        ([run({"t::a": "passed"})], Baseline(3), "only 1 tests ran; a clean workspace collects 3"),
        ([run({**PASS3, "t::a": "failed"})], Baseline(3), "1 of 3 tests failed"),
        ([run({**PASS3, "t::a": "error"})], Baseline(3), "1 of 3 tests failed or errored"),
        ([run(PASS3, broken=("/tests/t.py",))], Baseline(3), "could not collect /tests/t.py"),
        ([run(PASS3, collect_only=True)], Baseline(3), "only collected"),
        ([run({**PASS3, "t::a": "skipped"})], Baseline(3), "1 tests were skipped"),
        ([run({**PASS3, "t::a": "skipped"})], Baseline(3, skippable=1), ""),
        ([run({**PASS3, "t::a": "xfailed"})], Baseline(3), ""),
        ([run(PASS3, rewritten=("t::a::call",))], Baseline(3), "raised but was reported"),
        ([run(PASS3, replaced=("_pytest.reports.TestReport.__init__",))], Baseline(3), "replaced"),
        ([run(PASS3, hook_files=("/app/conftest.py",))], Baseline(3), "/app/conftest.py"),
        ([run(PASS3, hook_files=("<string>",))], Baseline(3), "hook code from <string>"),
        ([run(PASS3, startup_files=("/root/x/sitecustomize.py",))], Baseline(3), "start-up"),
        (
            [run(PASS3, inipath="/app/pytest.ini")],
            Baseline(3),
            "configuration from /app/pytest.ini",
        ),
        (
            [run(PASS3, hook_files=("/app/conftest.py",))],
            Baseline(3, kept={"/app/conftest.py": "x"}),
            "",
        ),
        ([run(PASS3, hook_files=("/tests/conftest.py",))], Baseline(3), ""),
        ([run({"t::a": "passed"}), run({"u::b": "passed", "u::c": "passed"})], Baseline(3), ""),
    ],
)
def test_judge(runs: list[PytestRun | None], baseline: Baseline, reason: str) -> None:
    verdict = judge(runs, baseline, WRITABLE)
    assert (verdict == "") if not reason else (reason in verdict), verdict


def plugin_report(tmp_path: Path, tests: str, *args: str) -> PytestRun | None:
    """Run this interpreter's pytest on `tests` with the grader's plugin; its one report."""
    (tmp_path / "test_x.py").write_text(tests)
    (tmp_path / "reports").mkdir()
    env = {"PYTHONPATH": str(PLUGIN_DIR), "HARNESSPRO_GRADER_REPORT": str(tmp_path / "reports")}
    argv = [sys.executable, "-m", "pytest", "-p", "harnesspro_grader", "-p", "no:cacheprovider"]
    subprocess.run([*argv, *args, "test_x.py"], cwd=tmp_path, env=env, capture_output=True)
    (report,) = read_reports(tmp_path / "reports")
    return report


TESTS = """import pytest

def test_ok(): pass
def test_bad(): assert 0
@pytest.mark.xfail
def test_xf(): assert 0
@pytest.mark.skip
def test_sk(): pass
@pytest.mark.parametrize("x", [1, 2])
def test_p(x): pass
"""


def test_the_plugin_reports_what_pytest_ran(tmp_path: Path) -> None:
    report = plugin_report(tmp_path, TESTS)
    assert report is not None and report.collected == 6 and report.skippable == 1
    assert report.outcomes == {
        "test_x.py::test_ok": "passed",
        "test_x.py::test_bad": "failed",
        "test_x.py::test_xf": "xfailed",
        "test_x.py::test_sk": "skipped",
        "test_x.py::test_p[1]": "passed",
        "test_x.py::test_p[2]": "passed",
    }
    assert report.rewritten == () and report.replaced == () and not report.collect_only


REWRITE = """import _pytest.reports as r

made = r.TestReport.__init__


def passing(self, *a, **k):
    made(self, *a, **k)
    if self.outcome == "failed":
        self.outcome = "passed"


r.TestReport.__init__ = passing
"""


def test_the_plugin_sees_a_failure_rewritten_after_it(tmp_path: Path) -> None:
    # The test module itself rewrites pytest's report class when it is imported.
    report = plugin_report(tmp_path, REWRITE + "\n\ndef test_bad():\n    assert 0\n")
    assert report is not None and report.outcomes == {"test_x.py::test_bad": "passed"}
    assert report.rewritten == ("test_x.py::test_bad::call",)
    assert report.replaced == ("_pytest.reports.TestReport.__init__",)


def test_an_unfinished_report_is_none() -> None:
    assert parse_report(json.dumps({"collected": 3})) is None
    assert parse_report("not json") is None


@pytest.mark.parametrize("source", [TESTS, "class TestA:\n    def test_a(self): pass\n"])
def test_test_functions_match_what_pytest_collects_per_function(
    tmp_path: Path, source: str
) -> None:
    report = plugin_report(tmp_path, source, "--collect-only")
    assert report is not None and report.collected is not None
    parametrized = 1 if "parametrize" in source else 0  # one function, two items
    assert count_test_functions(source) == report.collected - parametrized


def test_hook_files_are_moved_aside_and_back(tmp_path: Path) -> None:
    app, aside = tmp_path / "app", tmp_path / "aside"
    (app / "pkg" / "sitecustomize").mkdir(parents=True)
    aside.mkdir()
    (app / "own.pth").write_text("import os\n")
    mounts = [Mount(app, "/app", writable=True)]
    kept = clean_hooks(mounts)  # the task ships own.pth
    files = {
        "conftest.py": "x = 1\n",
        "pkg/pytest.ini": "[pytest]\naddopts = --co\n",
        "pkg/sitecustomize/__init__.py": "import os\n",
        "usercustomize.cpython-311.pyc": "",
        "evil.pth": "import os\n",
        "pyproject.toml": '[project]\nname = "x"\n[tool.pytest.ini_options]\naddopts = "--co"\n',
        "setup.cfg": "[metadata]\nname = x\n",
        "tox.ini": "[tox]\nenvlist = py3\n[pytest]\naddopts = --co\n",
    }
    for name, text in files.items():
        (app / name).write_text(text)
    before = {p: p.read_bytes() for p in app.rglob("*") if p.is_file()}
    hidden, stuck = hide_hooks(mounts, kept, aside)
    assert stuck == []
    left = sorted(p.relative_to(app).as_posix() for p in app.rglob("*") if p.is_file())
    assert left == ["own.pth", "pyproject.toml", "setup.cfg", "tox.ini"]
    assert (app / "pyproject.toml").read_text() == '[project]\nname = "x"\n'
    assert (app / "tox.ini").read_text() == "[tox]\nenvlist = py3\n"
    restore_hooks(hidden)
    assert {p: p.read_bytes() for p in app.rglob("*") if p.is_file()} == before
    assert list(aside.iterdir()) == []
