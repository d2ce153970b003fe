"""Run a task's official verifier in the sandbox, and validate tasks with it: the reference
solution passes (when there is one) and doing nothing fails."""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from harnesspro.core.records import Task
from harnesspro.sandbox.bubblewrap import SYSTEM_DIRS
from harnesspro.sandbox.contract import Mount, Sandbox, SandboxResult, mounted_source
from harnesspro.sandbox.paths import python_dirs
from harnesspro.sandbox.untrusted import NotAFile, read_text, remove_tree
from harnesspro.tasks.buildsteps import BuildError, ensure_build
from harnesspro.tasks.dockerfile import load_environment
from harnesspro.tasks.environment import Copy, Environment, NeedsContainer
from harnesspro.tasks.layout import Layout, lay_out
from harnesspro.tasks.loader import TaskError, TaskFiles, task_files
from harnesspro.tasks.ospackages import PackageError, ensure_layer
from harnesspro.tasks.run_commands import canonical_name
from harnesspro.tasks.testscript import called_commands
from harnesspro.tasks.toolenv import ToolEnvError, ensure_toolenv

OUTPUT_TAIL = 4000
REWARD_FILES = ("reward.txt", "reward.json")
REWARD_CAP = 4000
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
ValidationStatus = Literal["ok", "unproven", "invalid", "needs container", "unrunnable", "error"]


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


@dataclass(frozen=True)
class Validation:
    """The verdict of `tasks validate` on one task."""

    task_id: str
    status: ValidationStatus
    reason: str
    idle: VerifierResult | None = None
    reference: VerifierResult | None = None


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


def read_rewards(logs: Path) -> tuple[dict[str, str], str]:
    """The reward files the verifier left, as text (capped), and what stood in a reward
    file's place that is not a file ('' when nothing did): never opened through."""
    found: dict[str, str] = {}
    for name in REWARD_FILES:
        try:
            found[name] = read_text(logs / name, REWARD_CAP)
        except FileNotFoundError:
            continue
        except NotAFile as exc:
            return found, str(exc)
    return found, ""


def reward_of(rewards: dict[str, str], planted: str = "") -> tuple[float | None, str]:
    """The reward from reward.txt or reward.json, and where it came from (or why not). A
    reward file that is not a regular file (`planted`) is a failure, 0."""
    if planted:
        return 0.0, f"{planted}, not a file (not read)"
    if "reward.txt" in rewards:
        return _number(rewards["reward.txt"].strip()), "reward.txt"
    if "reward.json" in rewards:
        try:
            data = json.loads(rewards["reward.json"])
        except json.JSONDecodeError:
            return None, "reward.json (not JSON)"
        return _number(data.get("reward") if isinstance(data, dict) else data), "reward.json"
    return None, "no reward file"


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


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


def run_reference(task: Task, layout: Layout, sandbox: Sandbox) -> SandboxResult:
    """Run the reference solution (solve.sh) in the layout, as Harbor's oracle agent does."""
    solution = task_files(task).solution
    if solution is None:
        raise TaskError(f"{task.path}: no reference solution to run.")
    # Harbor mounts the solution at /solution; a task may already use that path for itself.
    target = "/oracle" if layout.host("/solution").exists() else "/solution"
    mounts = layout.mounts(extra=[Mount(solution.parent, target)])
    result = sandbox.run(
        ["bash", f"{target}/{solution.name}"],
        mounts,
        dict(layout.env),
        layout.workdir,
        task.timeout_s,
    )
    layout.tidy()
    return result


def validate_task(task: Task, sandbox: Sandbox, cache: Path | None = None) -> Validation:
    """Doing nothing must fail (reward 0); the reference solution, if any, must pass."""
    environment = environment_of(task)
    if isinstance(environment, NeedsContainer):
        return Validation(task.id, "needs container", _needs_reason(environment))
    try:
        with tempfile.TemporaryDirectory(prefix="hp-validate-") as tmp:
            layout = prepare(task, environment, Path(tmp, "idle"), cache)
            missing = missing_commands(task, layout)
            if missing:
                return Validation(task.id, "unrunnable", ungradable_reason(task, missing))
            idle = run_verifier(task, layout, sandbox)
            reference = None
            if task_files(task).solution is not None:
                layout = prepare(task, environment, Path(tmp, "ref"), cache)
                solved = run_reference(task, layout, sandbox)
                reference = run_verifier(task, layout, sandbox)
                if solved.exit_code != 0:
                    last = (solved.stderr.strip().splitlines() or ["no output"])[-1]
                    note = f"solve.sh exit code {solved.exit_code}: {last}"
                    reference = _with_reason(reference, note)
    except (PackageError, BuildError) as exc:
        return Validation(task.id, "needs container", str(exc))
    except (ToolEnvError, TaskError) as exc:
        return Validation(task.id, "error", str(exc))
    return _verdict(task.id, idle, reference)


def _needs_reason(needs: NeedsContainer) -> str:
    return f"{needs.reason} ({needs.instruction})" if needs.instruction else needs.reason


def _with_reason(result: VerifierResult, note: str) -> VerifierResult:
    return replace(result, reason=f"{result.reason}; {note}")


def _verdict(task_id: str, idle: VerifierResult, reference: VerifierResult | None) -> Validation:
    fault = idle.runner_fault or (reference.runner_fault if reference else None)
    if fault:
        return Validation(task_id, "error", f"runner fault: {fault}", idle, reference)
    if idle.reward is None or idle.timed_out:
        return Validation(task_id, "invalid", f"doing nothing: {idle.reason}", idle, reference)
    if idle.passed:
        return Validation(
            task_id, "invalid", f"doing nothing passes ({idle.reason})", idle, reference
        )
    if reference is not None and not reference.passed:
        return Validation(
            task_id, "invalid", f"reference fails ({reference.reason})", idle, reference
        )
    if reference is None:
        reason = f"doing nothing fails ({idle.reason}); no reference solution shows it can pass"
        return Validation(task_id, "unproven", reason, idle, None)
    reason = f"reference passes, doing nothing fails ({idle.reason})"
    return Validation(task_id, "ok", reason, idle, reference)
