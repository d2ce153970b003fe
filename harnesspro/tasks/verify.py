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
from harnesspro.sandbox.contract import Mount, Sandbox, mounted_source
from harnesspro.sandbox.paths import python_dirs
from harnesspro.sandbox.untrusted import remove_tree
from harnesspro.tasks.buildsteps import ensure_build
from harnesspro.tasks.dockerfile import load_environment
from harnesspro.tasks.environment import Copy, Environment, NeedsContainer
from harnesspro.tasks.layout import Layout, lay_out
from harnesspro.tasks.loader import TaskFiles, task_files
from harnesspro.tasks.ospackages import ensure_layer
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
    text = test_script_text(task_files(task))
    calls = "pytest" in called_commands(text) or re.search(r"-m\s+pytest\b", text)
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


def run_verifier(task: Task, layout: Layout, sandbox: Sandbox) -> VerifierResult:
    """Run the official tests against the layout's current working state. /logs/verifier is
    a folder made fresh for this run, where the agent never could write."""
    files = task_files(task)
    logs = Path(tempfile.mkdtemp(prefix="verifier-", dir=layout.logs))
    try:
        mounts = layout.mounts(verifier=True, extra=[Mount(logs, "/logs/verifier", True)])
        result = sandbox.run(
            ["bash", files.test_script],
            mounts,
            verifier_env(layout.verifier_environment(), mounts),
            layout.workdir,
            files.verifier_timeout_s,
        )
        layout.tidy()
        rewards, planted = read_rewards(logs)
    finally:
        remove_tree(logs)
    reward, source = reward_of(rewards, planted)
    if killed(result.exit_code):
        # The tests' own process was killed (by a program under test, say): a reward file
        # written before that proves nothing.
        reward, source = 0.0, f"the test script was killed (exit code {result.exit_code})"
    if files.layout == "terminal-bench" and not result.timed_out:
        # Terminal-Bench verifiers report by exit code, not by a reward file.
        reward, source = (1.0 if result.exit_code == 0 else 0.0), f"exit code {result.exit_code}"
    if result.timed_out:
        reason = f"verifier timed out after {files.verifier_timeout_s:.0f} s"
    elif reward is None:
        problem = source if source == "no reward file" else f"no number in {source}"
        reason = f"{problem}; exit code {result.exit_code}"
    else:
        reason = f"reward {reward:g} from {source}"
    output = (result.stdout + result.stderr)[-OUTPUT_TAIL:]
    return VerifierResult(reward, result.exit_code, result.timed_out, reason, output, rewards)


def killed(exit_code: int | None) -> bool:
    """The test script did not end by itself: stopped by the sandbox or by a signal."""
    return exit_code is None or exit_code < 0 or exit_code >= 128


def verifier_env(env: dict[str, str], mounts: list[Mount]) -> dict[str, str]:
    """The task's environment minus every agent-writable folder on PATH or PYTHONPATH, and
    without user site folders, so nothing the agent wrote is run in place of a tool."""
    writable = [m.target.rstrip("/") + "/" for m in mounts if m.writable]

    def trusted(folder: str) -> bool:
        return bool(folder) and not any((folder.rstrip("/") + "/").startswith(w) for w in writable)

    for name in ("PATH", "PYTHONPATH"):
        if name in env:
            env[name] = ":".join(d for d in env[name].split(":") if trusted(d))
    return {**env, "PYTHONNOUSERSITE": "1"}
