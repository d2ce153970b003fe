"""Run a task's official verifier in the sandbox: its own fresh /logs/verifier, its tools
(the task's, and a pinned pytest when the test calls one), never what the agent can write;
what a test script needs and whether this machine can give it."""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from harnesspro.core.records import Task
from harnesspro.sandbox.bubblewrap import SYSTEM_DIRS
from harnesspro.sandbox.contract import Mount, Sandbox, SandboxResult, mounted_source
from harnesspro.sandbox.paths import python_dirs
from harnesspro.sandbox.untrusted import remove_tree
from harnesspro.tasks.baseline import clean_baseline
from harnesspro.tasks.buildsteps import ensure_build
from harnesspro.tasks.dockerfile import load_environment
from harnesspro.tasks.environment import Copy, Environment, NeedsContainer
from harnesspro.tasks.hookfiles import hide_hooks, restore_hooks
from harnesspro.tasks.layout import Layout, lay_out
from harnesspro.tasks.loader import TaskFiles, task_files
from harnesspro.tasks.ospackages import ensure_layer
from harnesspro.tasks.pytest_grader import (
    Baseline,
    PytestRun,
    calls_pytest,
    grader_mounts,
    judge,
    read_reports,
    with_grader,
)
from harnesspro.tasks.reward import read_rewards, reward_of
from harnesspro.tasks.run_commands import canonical_name
from harnesspro.tasks.testscript import called_commands
from harnesspro.tasks.toolenv import ensure_toolenv

OUTPUT_TAIL = 4000
# Verifier output that means the runner, not the work, failed: a missing tool or module.
RUNNER_FAULTS = re.compile(
    r"command not found|No module named|ModuleNotFoundError|Read-only file system|^bwrap: ",
    re.MULTILINE,
)
KEPT_PYTHON = frozenset(
    {"PYTHONPATH", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONUTF8"}
)
"""The task's PYTHON* variables the verifier keeps (PYTHONPATH without the agent's folders)."""
PYTEST = "pytest==8.4.1"
"""The pytest a verifier gets when its task's Dockerfile installs none (Harbor's images come
with one); pinned, so every machine grades with the same version."""
# "unproven": doing nothing fails but no reference solution shows that the verifier can pass;
# "unrunnable": this machine cannot grade it (a command its tests call is missing).


@dataclass(frozen=True)
class VerifierResult:
    """What the verifier decided about one working state."""

    reward: float | None
    exit_code: int | None
    timed_out: bool
    reason: str
    output: str
    reward_files: dict[str, str] = field(default_factory=dict)
    """What the reward files said (capped; a non-file's entry says what it was)."""

    @property
    def passed(self) -> bool:
        if self.reward is not None:
            return self.reward >= 1.0
        return self.exit_code == 0

    @property
    def runner_fault(self) -> str | None:
        """The line showing that a tool or path the runner should provide was missing."""
        match = RUNNER_FAULTS.search(self.output)
        if match is None:
            return None
        start = self.output.rfind("\n", 0, match.start()) + 1
        end = self.output.find("\n", match.end())
        return self.output[start : end if end >= 0 else None].strip()


def environment_of(task: Task) -> Environment | NeedsContainer:
    """The task's interpreted Dockerfile (a plain environment when it has none)."""
    files = task_files(task)
    if not files.dockerfile.is_file():
        # Without a Dockerfile, environment/workspace/ holds the working directory's files.
        has_workspace = (files.context / "workspace").is_dir()
        copies = (Copy("workspace", task.workdir + "/"),) if has_workspace else ()
        return Environment(base_image="", workdir=task.workdir, copies=copies)
    return load_environment(files.dockerfile)


def prepare(task: Task, environment: Environment, dest: Path, cache: Path | None = None) -> Layout:
    """A fresh layout of the task under `dest`, with its tool environment, the verifier's,
    package layer and build steps' result built if needed."""
    tools = ensure_toolenv(environment.requirements, cache) if environment.requirements else None
    checker = ensure_toolenv(verifier_requirements(task, environment), cache)
    packages = ensure_layer(environment.os_packages, cache) if environment.os_packages else None
    built = ensure_build(task, environment, tools, packages, cache)
    return lay_out(task, environment, dest, tools, packages, built, checker)


def test_scripts(files: TaskFiles) -> list[str]:
    """The test script's text and those of the other shell scripts among the tests."""
    others = [*files.tests.glob("*.sh"), *files.extra_tests] if files.tests.is_dir() else []
    named = Path(files.test_script).name
    texts = [p.read_text(errors="replace") for p in others if p.suffix == ".sh" and p.name != named]
    return [test_script_text(files), *texts]


def test_script_text(files: TaskFiles) -> str:
    """The text of the script the verifier runs ('' when the task has none)."""
    name = Path(files.test_script).name
    for path in (files.tests / name, *files.extra_tests):
        if path.name == name and path.is_file():
            return path.read_text(errors="replace")
    return ""


def verifier_requirements(task: Task, environment: Environment) -> tuple[str, ...]:
    """The task's pip requirements, plus the pinned pytest when its tests call pytest and its
    Dockerfile installs none."""
    calls = calls_pytest(test_scripts(task_files(task)))
    has = any(canonical_name(r) == "pytest" for r in environment.requirements)
    return (*environment.requirements, PYTEST) if calls and not has else environment.requirements


def missing_commands(task: Task, layout: Layout) -> tuple[str, ...]:
    """Commands the test script calls that nothing on the verifier's PATH provides (only
    folders the agent cannot write count)."""
    mounts = layout.mounts(verifier=True)
    folders = verifier_env(layout.verifier_environment(), mounts)["PATH"].split(":")
    hosts = [h for h in (_host_folder(f, mounts) for f in folders) if h is not None]
    called = called_commands(test_script_text(task_files(task)))
    return tuple(
        c for c in called if not any((h / c).is_file() and os.access(h / c, os.X_OK) for h in hosts)
    )


def ungradable_reason(task: Task, missing: tuple[str, ...]) -> str:
    """One sentence: why this machine cannot grade the task."""
    names = ", ".join(f"`{m}`" for m in missing)
    return (
        f"task '{task.id}' cannot be graded here: its test script calls {names}, which neither "
        f"its tool environment nor this machine provides; install it on this machine or in "
        f"the task's Dockerfile (pip or apt-get)"
    )


def _host_folder(folder: str, mounts: list[Mount]) -> Path | None:
    """The host folder the sandbox shows at `folder` (None when nothing is bound there)."""
    source = mounted_source(mounts, folder)
    if source is not None:
        return Path(source)
    visible = [*SYSTEM_DIRS, *python_dirs()]
    if any(folder == top or folder.startswith(top + "/") for top in visible):
        return Path(folder)
    return None


@dataclass(frozen=True)
class ScriptRun:
    """What one run of the test script left: its process, reward files and pytest reports."""

    result: SandboxResult
    rewards: dict[str, str]
    planted: str
    reports: list[PytestRun | None]


def run_script(
    task: Task, layout: Layout, sandbox: Sandbox, grader: bool, collect_only: bool = False
) -> ScriptRun:
    """Run the test script once in a fresh /logs/verifier; with `grader`, every pytest it
    starts loads the grader's plugin, which reports into a folder of its own."""
    files = task_files(task)
    logs = Path(tempfile.mkdtemp(prefix="verifier-", dir=layout.logs))
    reports = Path(tempfile.mkdtemp(prefix="reports-", dir=layout.logs))
    try:
        extra = [Mount(logs, "/logs/verifier", True), *(grader_mounts(reports) if grader else [])]
        mounts = layout.mounts(verifier=True, extra=extra)
        env = verifier_env(layout.verifier_environment(), mounts)
        result = sandbox.run(
            ["bash", files.test_script],
            mounts,
            with_grader(env, collect_only) if grader else env,
            layout.workdir,
            files.verifier_timeout_s,
        )
        layout.tidy()
        rewards, planted = read_rewards(logs)
        runs = read_reports(reports) if grader else []
    finally:
        remove_tree(logs)
        remove_tree(reports)
    return ScriptRun(result, rewards, planted, runs)


def task_baseline(task: Task, sandbox: Sandbox, grader: bool) -> Baseline:
    """The task's clean-workspace baseline (its collected tests only when `grader`)."""
    environment = environment_of(task)
    if isinstance(environment, NeedsContainer):
        return Baseline(0)

    def collect(fresh: Layout) -> list[PytestRun | None]:
        return run_script(task, fresh, sandbox, True, collect_only=True).reports if grader else []

    return clean_baseline(task, lambda dest: prepare(task, environment, dest), collect)


def run_verifier(task: Task, layout: Layout, sandbox: Sandbox) -> VerifierResult:
    """Run the official tests against the layout's current working state, with the agent's
    hook files moved aside. /logs/verifier is a folder made fresh for this run, where the
    agent never could write. A test script that runs pytest passes only with the grader's
    report of a complete pass (`pytest_grader.judge`)."""
    files = task_files(task)
    grader = calls_pytest(test_scripts(files))
    baseline = task_baseline(task, sandbox, grader)
    agent = [m for m in layout.mounts() if m.writable]
    aside = Path(tempfile.mkdtemp(prefix="hooks-", dir=layout.logs))
    try:
        hidden, stuck = hide_hooks(agent, baseline.kept, aside)
        try:
            run = run_script(task, layout, sandbox, grader)
        finally:
            restore_hooks(hidden)
    finally:
        remove_tree(aside)
    result = run.result
    reward, source = reward_of(run.rewards, run.planted)
    if killed(result.exit_code):
        # The tests' own process was killed (by a program under test, say): a reward file
        # written before that proves nothing.
        reward, source = 0.0, f"the test script was killed (exit code {result.exit_code})"
    if files.layout == "terminal-bench" and not result.timed_out:
        # Terminal-Bench verifiers report by exit code, not by a reward file.
        reward, source = (1.0 if result.exit_code == 0 else 0.0), f"exit code {result.exit_code}"
    why = judge(run.reports, baseline, tuple(m.target for m in agent)) if grader else ""
    if stuck:
        why = f"the grader could not move {stuck[0]} aside"
    if why and (reward is None or reward > 0.0):
        reward, source = 0.0, f"the grader: {why} (the script said {_said(reward, source)})"
    if result.timed_out:
        reason = f"verifier timed out after {files.verifier_timeout_s:.0f} s"
    elif reward is None:
        problem = source if source == "no reward file" else f"no number in {source}"
        reason = f"{problem}; exit code {result.exit_code}"
    else:
        reason = f"reward {reward:g} from {source}"
    output = (result.stdout + result.stderr)[-OUTPUT_TAIL:]
    return VerifierResult(reward, result.exit_code, result.timed_out, reason, output, run.rewards)


def _said(reward: float | None, source: str) -> str:
    return f"reward {reward:g} from {source}" if reward is not None else source


def killed(exit_code: int | None) -> bool:
    """The test script did not end by itself: stopped by the sandbox or by a signal."""
    return exit_code is None or exit_code < 0 or exit_code >= 128


def verifier_env(env: dict[str, str], mounts: list[Mount]) -> dict[str, str]:
    """The task's environment minus every agent-writable folder on PATH or PYTHONPATH, and
    without user site folders, so nothing the agent wrote is run in place of a tool. The
    interpreter's other PYTHON* variables are the grader's: only harmless ones stay."""
    env = {k: v for k, v in env.items() if not k.startswith("PYTHON") or k in KEPT_PYTHON}
    writable = [m.target.rstrip("/") + "/" for m in mounts if m.writable]

    def trusted(folder: str) -> bool:
        return bool(folder) and not any((folder.rstrip("/") + "/").startswith(w) for w in writable)

    for name in ("PATH", "PYTHONPATH"):
        if name in env:
            env[name] = ":".join(d for d in env[name].split(":") if trusted(d))
    return {**env, "PYTHONNOUSERSITE": "1"}
