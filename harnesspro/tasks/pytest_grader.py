"""The grader's pytest plugin (`grader/harnesspro_grader.py`) as the grader sees it: how a
verifier's pytest loads it, what it reported, and the verdict on that.

A pytest verifier passes only when the grader's own report shows that at least the tests a
clean workspace collects ran and none failed, with no hook code, configuration or start-up
code from a file the agent could write, and pytest's reporting code as it was when the tests
started.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from harnesspro.sandbox.contract import Mount
from harnesspro.sandbox.untrusted import NotAFile, read_text
from harnesspro.tasks.testscript import called_commands

PLUGIN_DIR = Path(__file__).resolve().parent / "grader"
PLUGIN = "harnesspro_grader"
PLUGIN_FILE = PLUGIN_DIR / f"{PLUGIN}.py"
"""Also copied into every tool environment with pytest (`toolenv`)."""
PLUGIN_TARGET = "/.harnesspro/grader/plugin"
REPORTS_TARGET = "/.harnesspro/grader/reports"
"""Where the verifier's sandbox sees the plugin (read-only) and its report folder."""
REPORT_CAP = 1_000_000
BAD = ("failed", "error")


@dataclass(frozen=True)
class PytestRun:
    """One pytest session's report, as the plugin wrote it."""

    collected: int | None
    broken: tuple[str, ...]
    """Files (as the sandbox saw them) that pytest could not collect."""
    outcomes: dict[str, str]
    """Each test's outcome: passed, failed, error, skipped or xfailed."""
    rewritten: tuple[str, ...]
    """Test phases whose runner saw an exception but whose final report says passed."""
    hook_files: tuple[str, ...]
    startup_files: tuple[str, ...]
    replaced: tuple[str, ...]
    inipath: str
    collect_only: bool
    skippable: int = 0
    """Collected tests that carry a skip or skipif mark."""


@dataclass(frozen=True)
class Baseline:
    """What a clean workspace gives the verifier's pytest: the tests it collects (a file that
    fails to import there counts its test functions) and its own hook files, by content."""

    collected: int
    skippable: int = 0
    """Tests that carry a skip or skipif mark."""
    kept: dict[str, str] = field(default_factory=dict)
    """Container path -> sha256 of each hook file the clean workspace has (the task's own)."""


def calls_pytest(scripts: list[str]) -> bool:
    """Whether any of the test scripts' texts runs pytest."""
    return any(
        "pytest" in called_commands(text) or re.search(r"-m\s+pytest\b", text) for text in scripts
    )


def grader_mounts(reports: Path) -> list[Mount]:
    """The plugin, read-only, and the fresh folder it writes its reports into."""
    return [Mount(PLUGIN_DIR, PLUGIN_TARGET), Mount(reports, REPORTS_TARGET, writable=True)]


def with_grader(env: dict[str, str], collect_only: bool = False) -> dict[str, str]:
    """The verifier's variables with the plugin loaded into every pytest it starts."""
    path = ":".join(p for p in (PLUGIN_TARGET, env.get("PYTHONPATH", "")) if p)
    opts = " ".join(o for o in (env.get("PYTEST_ADDOPTS", ""), f"-p {PLUGIN}") if o)
    extra = {"PYTHONPATH": path, "PYTEST_ADDOPTS": opts, "HARNESSPRO_GRADER_REPORT": REPORTS_TARGET}
    if collect_only:
        extra["PYTEST_ADDOPTS"] += " --collect-only"
    return {**env, **extra}


def _test_outcome(phases: dict[str, str]) -> str:
    if phases.get("setup") in BAD or phases.get("teardown") in BAD:
        return "error"
    if "xfailed" in phases.values():
        return "xfailed"
    if "call" not in phases or "skipped" in phases.values():
        return "skipped"
    return phases["call"]


def parse_report(text: str) -> PytestRun | None:
    """The report's record (None when it is no report the plugin finished)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or data.get("finished") is not True:
        return None
    final = {str(k): str(v) for k, v in dict(data.get("final") or {}).items()}
    by_test: dict[str, dict[str, str]] = {}
    for key, outcome in final.items():
        test, _, when = key.rpartition("::")
        by_test.setdefault(test, {})[when] = outcome
    raised = [str(k) for k in dict(data.get("raw") or {})]
    collected = data.get("collected")
    return PytestRun(
        collected=collected if isinstance(collected, int) else None,
        broken=tuple(map(str, data.get("broken") or [])),
        outcomes={test: _test_outcome(phases) for test, phases in by_test.items()},
        rewritten=tuple(sorted(k for k in raised if final.get(k) == "passed")),
        hook_files=tuple(map(str, data.get("hook_files") or [])),
        startup_files=tuple(map(str, data.get("startup_files") or [])),
        replaced=tuple(map(str, data.get("replaced") or [])),
        inipath=str(data.get("inipath") or ""),
        collect_only=bool(data.get("collect_only")),
        skippable=int(data.get("skippable") or 0),
    )


def read_reports(folder: Path) -> list[PytestRun | None]:
    """Every report in the folder, in name order (None for one that is unreadable)."""
    runs: list[PytestRun | None] = []
    for path in sorted(folder.glob("report-*.json")):
        try:
            runs.append(parse_report(read_text(path, REPORT_CAP)))
        except (OSError, NotAFile):
            runs.append(None)
    return runs


def _agent_file(path: str, writable: tuple[str, ...], kept: dict[str, str]) -> bool:
    """Code the agent could have written: from a writable folder (but for the clean
    workspace's own hook files), or with no file at all (made at run time)."""
    if path.startswith("<"):
        return True
    if path in kept:
        return False
    return any(path == w or path.startswith(w.rstrip("/") + "/") for w in writable)


def tampering(run: PytestRun, writable: tuple[str, ...], kept: dict[str, str]) -> str:
    """Why this run's outcomes cannot be trusted ('' when nothing says so)."""
    if run.rewritten:
        return f"{run.rewritten[0]} raised but was reported as passed"
    if run.replaced:
        return f"pytest's {run.replaced[0]} was replaced while the tests ran"
    for kind, files in (("hook", run.hook_files), ("start-up", run.startup_files)):
        bad = [f for f in files if _agent_file(f, writable, kept)]
        if bad:
            return f"pytest ran {kind} code from {bad[0]}, which the agent could write"
    if run.inipath and _agent_file(run.inipath, writable, kept):
        return f"pytest read its configuration from {run.inipath}, which the agent could write"
    return ""


def judge(runs: list[PytestRun | None], baseline: Baseline, writable: tuple[str, ...]) -> str:
    """'' when the grader's reports show a complete, untampered pass, else the reason."""
    if not runs:
        return "pytest ended without the grader's report (it exited early or never ran)"
    done = [run for run in runs if run is not None]
    if len(done) < len(runs):
        return "a pytest run ended without finishing the grader's report"
    for run in done:
        why = tampering(run, writable, baseline.kept)
        if why:
            return why
    if any(run.collect_only for run in done):
        return "pytest only collected the tests (--collect-only), it ran none"
    totals: Counter[str] = Counter()
    for run in done:
        totals.update(run.outcomes.values())
    ran, broken = sum(totals.values()), [path for run in done for path in run.broken]
    if broken:
        return f"the grader's report shows pytest could not collect {broken[0]}"
    bad = totals["failed"] + totals["error"]
    if bad:
        return f"the grader's report shows {bad} of {ran} tests failed or errored"
    if ran == 0:
        return "the grader's report shows no test ran"
    if ran < baseline.collected:
        return f"only {ran} tests ran; a clean workspace collects {baseline.collected}"
    if totals["skipped"] > baseline.skippable:
        marked = baseline.skippable
        return f"{totals['skipped']} tests were skipped; only {marked} carry a skip mark"
    return ""
