"""Checking a task before it is used: its official test must fail on the untouched workspace and
pass on the reference solution, else the task is refused with the reason."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from harnesspro.core.records import Task
from harnesspro.sandbox.contract import Mount, Sandbox, SandboxResult
from harnesspro.tasks.buildsteps import BuildError
from harnesspro.tasks.environment import NeedsContainer
from harnesspro.tasks.layout import Layout
from harnesspro.tasks.loader import TaskError, task_files
from harnesspro.tasks.ospackages import PackageError
from harnesspro.tasks.toolenv import ToolEnvError
from harnesspro.tasks.verify import (
    VerifierResult,
    environment_of,
    missing_commands,
    prepare,
    run_verifier,
    ungradable_reason,
)

ValidationStatus = Literal["ok", "unproven", "invalid", "needs container", "unrunnable", "error"]


@dataclass(frozen=True)
class Validation:
    """The verdict of `tasks validate` on one task."""

    task_id: str
    status: ValidationStatus
    reason: str
    idle: VerifierResult | None = None
    reference: VerifierResult | None = None


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
