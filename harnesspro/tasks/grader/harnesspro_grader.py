"""HarnessPro's grader plugin for pytest: the grader loads it into a verifier's pytest (never
the workspace), and it writes its own report of what ran into a folder only the grader reads.

It records, as they happen: the tests collected, each test's outcome both as pytest's runner
made it (from the exception the test raised) and as finally reported, the files that every
registered hook implementation comes from, the configuration file, and whether pytest's own
reporting code was replaced while the tests ran. It judges nothing: the grader does.
Standard library and pytest only; it runs inside the sandbox, under the task's interpreter.
"""

from __future__ import annotations

import json
import os
import sys
import types

import pytest

REPORT_ENV = "HARNESSPRO_GRADER_REPORT"
# Where pytest turns an exception into an outcome: a function replaced here while the tests
# ran rewrote what they reported.
WATCHED = (
    "_pytest.reports",
    "_pytest.runner",
    "_pytest.skipping",
    "_pytest.main",
    "_pytest.terminal",
    "_pytest.outcomes",
    "_pytest.python",
    "pluggy._callers",
    "pluggy._hooks",
    "pluggy._manager",
)


def _code_of(value: object) -> object:
    return getattr(value, "__code__", value)


def _watched() -> dict[str, int]:
    """id of every function (and method of every class) of the watched modules, by name."""
    seen: dict[str, int] = {}
    for name in WATCHED:
        module = sys.modules.get(name)
        for key, value in vars(module).items() if module else ():
            if isinstance(value, types.FunctionType):
                seen[f"{name}.{key}"] = id(_code_of(value))
            elif isinstance(value, type) and value.__module__ == name:
                for attr, member in vars(value).items():
                    seen[f"{name}.{key}.{attr}"] = id(_code_of(member))
    return seen


_STATE: dict[str, object] = {"raw": {}, "final": {}, "broken": [], "collected": None}
_BEFORE = _watched()


def pytest_configure(config: pytest.Config) -> None:
    _STATE["inipath"] = str(config.inipath) if config.inipath else ""
    _STATE["collect_only"] = bool(config.option.collectonly)


def pytest_collection_finish(session: pytest.Session) -> None:
    _STATE["collected"] = len(session.items)
    marks = ("skip", "skipif")
    marked = [i for i in session.items if any(any(i.iter_markers(m)) for m in marks)]
    _STATE["skippable"] = len(marked)


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_make_collect_report(collector: pytest.Collector):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if report is not None and report.outcome == "failed":
        broken: list[str] = _STATE["broken"]  # type: ignore[assignment]
        broken.append(str(getattr(collector, "path", collector.nodeid)))


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    # Innermost wrapper: the runner's own verdict, before any other plugin could change it.
    excinfo = call.excinfo
    yield
    raised = excinfo is not None and not isinstance(excinfo.value, pytest.skip.Exception)
    raw: dict[str, str] = _STATE["raw"]  # type: ignore[assignment]
    if raised:
        raw[f"{item.nodeid}::{call.when}"] = "raised"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    final: dict[str, str] = _STATE["final"]  # type: ignore[assignment]
    key = f"{report.nodeid}::{report.when}"
    final[key] = "xfailed" if getattr(report, "wasxfail", None) is not None else report.outcome


def _hook_files(config: pytest.Config) -> list[str]:
    """The source file of every hook implementation registered now."""
    files = set()
    for name in dir(config.hook):
        caller = getattr(config.hook, name)
        for impl in getattr(caller, "get_hookimpls", lambda: [])():
            code = getattr(impl.function, "__code__", None)
            files.add(code.co_filename if code else f"<{impl.plugin_name}>")
    return sorted(files)


def _startup_files() -> list[str]:
    found = []
    for name in ("sitecustomize", "usercustomize"):
        module = sys.modules.get(name)
        if module is not None:
            found.append(str(getattr(module, "__file__", None) or f"<{name}>"))
    return found


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    folder = os.environ.get(REPORT_ENV)
    if not folder:
        return
    after = _watched()
    replaced = sorted(k for k, v in _BEFORE.items() if after.get(k) != v)
    report = {
        **_STATE,
        "finished": True,
        "exitstatus": int(exitstatus),
        "hook_files": _hook_files(session.config),
        "startup_files": _startup_files(),
        "replaced": replaced,
    }
    path = os.path.join(folder, f"report-{os.getpid()}-{id(session)}.json")
    with open(path, "w") as out:
        json.dump(report, out)
