"""What a task's pytest verifier sees on a clean workspace: the tests it collects and the hook
files the task itself ships, worked out once per task content and plugin on this machine.

A file that fails to import on a clean workspace (its tests import the agent's code at the
top) counts its test functions, read from its syntax tree: the tests it would have run.
"""

from __future__ import annotations

import ast
import hashlib
import json
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from harnesspro.core.atomic import write_text_atomic
from harnesspro.core.records import Task
from harnesspro.sandbox.contract import mounted_source
from harnesspro.tasks.hookfiles import clean_hooks
from harnesspro.tasks.layout import Layout
from harnesspro.tasks.pytest_grader import PLUGIN_FILE, Baseline, PytestRun
from harnesspro.tasks.toolenv import cache_root

Collect = Callable[[Layout], list[PytestRun | None]]
"""Runs the test script on a layout with pytest collecting only; the plugin's reports."""
EXCLUDED = ("solution/", "solution.sh")


def count_test_functions(source: str) -> int:
    """Test functions pytest collects by default: `test*` at the top and in `Test*` classes."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return 0
    count = 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            count += node.name.startswith("test")
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            count += sum(
                isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name.startswith("test")
                for f in node.body
            )
    return count


def _uncollected(run: PytestRun, layout: Layout) -> int:
    """Test functions of the files this run could not import."""
    mounts = layout.mounts(verifier=True)
    count = 0
    for path in run.broken:
        host = mounted_source(mounts, path)
        if host is not None and path.endswith(".py") and Path(host).is_file():
            count += count_test_functions(Path(host).read_text(errors="replace"))
    return count


def measure(fresh: Layout, collect: Collect) -> Baseline:
    """The baseline of one clean layout."""
    runs = [run for run in collect(fresh) if run is not None]
    collected = sum((run.collected or 0) + _uncollected(run, fresh) for run in runs)
    skippable = sum(run.skippable for run in runs)
    kept = clean_hooks([m for m in fresh.mounts() if m.writable])
    return Baseline(collected, skippable, kept)


def task_key(task: Task) -> str:
    """The task's content (its reference solution aside) and the plugin's code, hashed."""
    digest = hashlib.sha256(PLUGIN_FILE.read_bytes())
    for path in sorted(task.path.rglob("*")):
        rel = path.relative_to(task.path).as_posix()
        if path.is_file() and not rel.startswith(EXCLUDED) and "__pycache__" not in rel:
            digest.update(f"\0{rel}\0".encode() + path.read_bytes())
    return digest.hexdigest()[:24]


def clean_baseline(task: Task, layout_at: Callable[[Path], Layout], collect: Collect) -> Baseline:
    """The task's baseline, from this machine's cache or measured on a fresh layout now."""
    path = cache_root() / "grader-baselines" / f"{task_key(task)}.json"
    try:
        data = json.loads(path.read_text())
        return Baseline(int(data["collected"]), int(data["skippable"]), dict(data["kept"]))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    with tempfile.TemporaryDirectory(prefix="hp-baseline-") as tmp:
        found = measure(layout_at(Path(tmp)), collect)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(asdict(found)))
    return found
