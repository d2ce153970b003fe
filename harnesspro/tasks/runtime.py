"""One task runtime for validation, rollouts, grading and evaluation.

A task travels to a Ray worker as data (`TaskBundle`: its folder's files without the reference
solution, keyed by a content hash), is written once per hash into the worker's cache, and is
laid out per run by `open_task`: files at their container paths, the pip tool environment, the
OS package layer, the Dockerfile's variables and working directory. The agent's sandbox and the
verifier's see that same layout; `grade` runs the official verifier on it and keeps its
evidence.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from harnesspro.core.records import Task, VerifierEvidence
from harnesspro.sandbox.contract import Sandbox
from harnesspro.tasks.buildsteps import BuildError
from harnesspro.tasks.environment import NeedsContainer
from harnesspro.tasks.layout import Layout, lay_out
from harnesspro.tasks.loader import TaskError, load_task
from harnesspro.tasks.ospackages import PackageError
from harnesspro.tasks.toolenv import ToolEnvError, cache_root
from harnesspro.tasks.verify import (
    VerifierResult,
    environment_of,
    missing_commands,
    prepare,
    run_verifier,
    ungradable_reason,
)

# The reference solution never leaves the driver: workers (and so harnesses) never get it.
SOLUTION_PARTS = ("solution/", "solution.sh")
EVIDENCE_TAIL = 4000


class TaskUnrunnable(TaskError):
    """The task needs something this runtime cannot provide; the message says what."""


@dataclass(frozen=True)
class TaskBundle:
    """A task folder as data for a Ray worker: relative path -> bytes, executables, hash."""

    task_id: str
    digest: str
    files: dict[str, bytes] = field(repr=False)
    executables: frozenset[str] = frozenset()


def bundle_task(task: Task) -> TaskBundle:
    """The task's files without its reference solution, hashed for the worker's cache."""
    files: dict[str, bytes] = {}
    executables = set()
    for path in sorted(task.path.rglob("*")):
        rel = path.relative_to(task.path).as_posix()
        if not path.is_file() or rel.startswith(SOLUTION_PARTS) or "__pycache__" in rel:
            continue
        files[rel] = path.read_bytes()
        if os.access(path, os.X_OK):
            executables.add(rel)
    digest = hashlib.sha256()
    for rel, data in files.items():
        digest.update(f"{rel}\0{rel in executables}\0{len(data)}\0".encode())
        digest.update(data)
    return TaskBundle(task.id, digest.hexdigest()[:20], files, frozenset(executables))


def materialise(bundle: TaskBundle, cache: Path | None = None) -> Task:
    """The bundled task as a folder in the cache, written once per content hash."""
    final = (cache or cache_root()) / "tasks" / bundle.digest / bundle.task_id
    if not final.is_dir():
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".part-", dir=final.parent))
        try:
            for rel, data in bundle.files.items():
                target = tmp / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                if rel in bundle.executables:
                    target.chmod(0o755)
            tmp.rename(final)
        except OSError:
            if not final.is_dir():  # a concurrent writer of the same hash wins the race
                raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return load_task(final)


def unrunnable_reason(task: Task, cache: Path | None = None) -> str | None:
    """One sentence saying why the task cannot run or be graded here, or None when it can
    (this builds the tool environments and OS package layer the task needs and runs its build
    steps, once)."""
    try:
        with tempfile.TemporaryDirectory(prefix="hp-check-") as tmp:
            open_task(task, Path(tmp), cache)
    except TaskUnrunnable as exc:
        return str(exc)
    except ToolEnvError:
        return None  # pip trouble is an infrastructure fault, reported by the run itself
    return None


def open_task(task: Task, dest: Path, cache: Path | None = None) -> Layout:
    """A fresh layout of the task under `dest` (raises TaskUnrunnable when it cannot run,
    or when a command its test script calls is missing: a task this runner cannot grade)."""
    environment = environment_of(task)
    if isinstance(environment, NeedsContainer):
        where = f" ({environment.instruction[:120]})" if environment.instruction else ""
        raise TaskUnrunnable(
            f"task '{task.id}' cannot run without a container: {environment.reason}{where}."
        )
    try:
        layout = prepare(task, environment, dest, cache)
    except (PackageError, BuildError) as exc:
        raise TaskUnrunnable(f"task '{task.id}' cannot run here: {exc}.") from None
    missing = missing_commands(task, layout)
    if missing:
        raise TaskUnrunnable(ungradable_reason(task, missing) + ".")
    return layout


def run_steps(task: Task, steps: Iterable[str], dest: Path, sandbox: Sandbox) -> Layout:
    """A fresh layout of the task with `steps` run in it one by one, as an agent would (for
    checking what a verifier accepts)."""
    layout = open_task(task, dest)
    for step in steps:
        sandbox.run(["bash", "-c", step], layout.mounts(), dict(layout.env), layout.workdir, 60)
    return layout


def input_files(task: Task) -> tuple[str, ...]:
    """Container paths of the files the task's image adds: what an agent finds on arrival."""
    environment = environment_of(task)
    if isinstance(environment, NeedsContainer):
        return ()
    with tempfile.TemporaryDirectory(prefix="hp-inputs-") as tmp:
        try:
            if environment.build_steps:  # what they made (a database, say) is input too
                root = prepare(task, environment, Path(tmp)).root
            else:
                root = lay_out(task, environment, Path(tmp), None).root
        except (TaskError, OSError, PackageError, BuildError, ToolEnvError):
            return ()
        return tuple(f"/{p.relative_to(root)}" for p in sorted(root.rglob("*")) if p.is_file())


def grade(task: Task, layout: Layout, sandbox: Sandbox) -> VerifierEvidence:
    """Run the official verifier on the layout's current state and keep what it said."""
    return evidence(run_verifier(task, layout, sandbox))


def evidence(result: VerifierResult) -> VerifierEvidence:
    """The verifier's verdict, output tail, exit status and reward files as a record."""
    rewards = {name: text[:EVIDENCE_TAIL] for name, text in result.reward_files.items()}
    reason = result.reason if result.passed else failure_reason(result)
    return VerifierEvidence(
        passed=result.passed,
        reward=result.reward,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        reason=reason,
        output=result.output[-EVIDENCE_TAIL:],
        reward_files=rewards,
    )


def failure_reason(result: VerifierResult) -> str:
    """One line: the verdict plus the verifier's most telling output line."""
    line = telling_line(result.output)
    return f"{result.reason}: {line}"[:300] if line else result.reason


def telling_line(output: str) -> str:
    """The line that says why tests failed: pytest's `FAILED ...`/`E ...`, a `FAIL:` line,
    an error, else the last non-blank line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for marker in ("FAILED ", "FAIL:", "E   ", "Error", "error:"):
        hits = [line for line in lines if line.startswith(marker) or marker in line[:40]]
        if hits:
            return hits[0] if marker == "FAILED " else hits[-1]
    return lines[-1] if lines else ""
