"""Load task folders: Harbor (task.toml, instruction.md, environment/, tests/, solution/) and
the older Terminal-Bench layout (task.yaml, Dockerfile, run-tests.sh, tests/, solution.sh)."""

from __future__ import annotations

import functools
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from harnesspro.core.records import Task
from harnesspro.core.search_config import PACKAGED_SUITES
from harnesspro.core.yamlio import YamlTooLarge, load_bounded
from harnesspro.tasks.dockerfile import declared_workdir
from harnesspro.tasks.taskmeta import HarborMeta, TerminalBenchMeta, describe

TaskLayout = Literal["harbor", "terminal-bench"]
M = TypeVar("M", bound=BaseModel)


class TaskError(ValueError):
    """A malformed task folder; the message names the file and the reason."""


@dataclass(frozen=True)
class TaskFiles:
    """Where a task keeps its parts, whatever its layout."""

    layout: TaskLayout
    dockerfile: Path
    context: Path
    tests: Path
    test_script: str
    extra_tests: tuple[Path, ...]
    solution: Path | None
    verifier_timeout_s: float


def builtin_suite_dir(name: str = "builtin") -> Path:
    """The folder of a suite shipped as package data (`builtin` or `easy`)."""
    return Path(str(resources.files("harnesspro.tasks") / name))


def layout_of(folder: Path) -> TaskLayout:
    """Harbor when there is a task.toml, Terminal-Bench when there is a task.yaml."""
    if (folder / "task.toml").is_file():
        return "harbor"
    if (folder / "task.yaml").is_file():
        return "terminal-bench"
    raise TaskError(f"{folder}: neither task.toml (Harbor) nor task.yaml (Terminal-Bench) found.")


def load_task(folder: Path) -> Task:
    """Read one task folder into a `Task`, raising TaskError when it is malformed."""
    if layout_of(folder) == "harbor":
        return _load_harbor(folder)
    return _load_terminal_bench(folder)


def _require(*paths: Path) -> None:
    for path in paths:
        if not path.is_file():
            raise TaskError(f"{path}: missing; the task needs it.")


def _load_harbor(folder: Path) -> Task:
    toml_path, instruction_path = folder / "task.toml", folder / "instruction.md"
    _require(instruction_path, folder / "tests" / "test.sh")
    meta = _harbor_meta(toml_path)
    instruction = _read_text(instruction_path).strip()
    if not instruction:
        raise TaskError(f"{instruction_path}: empty; write the task's instruction there.")
    default_workdir = declared_workdir(folder / "environment" / "Dockerfile") or "/workspace"
    return Task(
        id=folder.name,
        instruction=instruction,
        workdir=meta.harnesspro.workdir or default_workdir,
        category=meta.metadata.category,
        difficulty=meta.metadata.difficulty,
        timeout_s=meta.agent.timeout_sec,
        path=folder.resolve(),
    )


def _load_terminal_bench(folder: Path) -> Task:
    yaml_path = folder / "task.yaml"
    _require(folder / "run-tests.sh", folder / "Dockerfile")
    meta = _typed(TerminalBenchMeta, _read_yaml(yaml_path), yaml_path)
    instruction = meta.instruction
    if instruction is None and meta.descriptions:
        instruction = meta.descriptions[0].description
    if instruction is None or not instruction.strip():
        raise TaskError(f"{yaml_path}: no `instruction`; a Terminal-Bench task needs one.")
    return Task(
        id=folder.name,
        instruction=instruction.strip(),
        workdir=declared_workdir(folder / "Dockerfile") or "/app",
        category=meta.category,
        difficulty=meta.difficulty,
        timeout_s=meta.max_agent_timeout_sec,
        path=folder.resolve(),
    )


def _typed(model: type[M], data: dict[str, Any], path: Path) -> M:
    """The fields of a task file we read, type- and range-checked."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise TaskError(describe(exc, path)) from None


def _read_text(path: Path) -> str:
    try:
        return path.read_text()
    except UnicodeDecodeError:
        raise TaskError(f"{path}: not UTF-8 text; save it as UTF-8.") from None


def _harbor_meta(path: Path) -> HarborMeta:
    """task.toml's fields, parsed once per text (every rollout reads its task's)."""
    return _parsed_harbor_meta(_read_text(path), path)


@functools.lru_cache(maxsize=512)
def _parsed_harbor_meta(text: str, path: Path) -> HarborMeta:  # frozen: safe to share
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{path}: not valid TOML ({exc}).") from None
    return _typed(HarborMeta, data, path)


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = load_bounded(_read_text(path))
    except yaml.YAMLError as exc:
        raise TaskError(f"{path}: not valid YAML ({exc.__class__.__name__}).") from None
    except YamlTooLarge as exc:
        raise TaskError(f"{path}: {exc}.") from None
    if not isinstance(data, dict):
        raise TaskError(f"{path}: expected a mapping of task fields.")
    return data


def task_files(task: Task) -> TaskFiles:
    """The parts of a loaded task, by its layout."""
    root = task.path
    if layout_of(root) == "harbor":
        toml_path = root / "task.toml"
        verifier = _harbor_meta(toml_path).verifier
        solution = root / "solution" / "solve.sh"
        return TaskFiles(
            layout="harbor",
            dockerfile=root / "environment" / "Dockerfile",
            context=root / "environment",
            tests=root / "tests",
            test_script="/tests/test.sh",
            extra_tests=(),
            solution=solution if solution.is_file() else None,
            verifier_timeout_s=verifier.timeout_sec,
        )
    meta = _typed(TerminalBenchMeta, _read_yaml(root / "task.yaml"), root / "task.yaml")
    solution = root / "solution.sh"
    # Terminal-Bench copies run-tests.sh next to the tests in $TEST_DIR and runs it there.
    return TaskFiles(
        layout="terminal-bench",
        dockerfile=root / "Dockerfile",
        context=root,
        tests=root / "tests",
        test_script="/tests/run-tests.sh",
        extra_tests=(root / "run-tests.sh",),
        solution=solution if solution.is_file() else None,
        verifier_timeout_s=meta.max_test_timeout_sec,
    )


def scan_suite(root: Path) -> tuple[list[Task], list[TaskError]]:
    """Every loadable task under `root` (sorted by id) and the problems of the others."""
    tasks, problems = [], []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            tasks.append(load_task(folder))
        except (ValueError, OSError) as exc:  # TaskError, and what a damaged file raises
            problems.append(exc if isinstance(exc, TaskError) else TaskError(f"{folder}: {exc}"))
    return tasks, problems


Suite = str | Sequence[str]
"""`builtin`, a folder of task folders (Harbor or Terminal-Bench), or a list of such."""


def suite_dir(suite: str) -> Path:
    """The folder of a suite named `builtin` or given as a path. A Terminal-Bench repository
    checkout (its tasks under `tasks/`) counts as the folder of its tasks."""
    root = builtin_suite_dir(suite) if suite in PACKAGED_SUITES else Path(suite)
    if not root.is_dir():
        raise TaskError(f"{root}: task suite folder not found; fix `tasks.suite`.")
    nested = root / "tasks"
    if nested.is_dir() and not _holds_tasks(root) and _holds_tasks(nested):
        return nested
    return root


def _holds_tasks(folder: Path) -> bool:
    return any(
        (child / "task.toml").is_file() or (child / "task.yaml").is_file()
        for child in folder.iterdir()
        if child.is_dir()
    )


def suite_parts(suite: Suite) -> list[str]:
    """The folders (or `builtin`) a suite setting names, as a list."""
    return [suite] if isinstance(suite, str) else list(suite)


def load_suite(suite: Suite) -> list[Task]:
    """All tasks of a suite (`builtin`, a folder, or a list of them), sorted by id.

    Malformed folders are reported on stderr and skipped, never fatal; two tasks with the same
    id in different folders are an error naming both.
    """
    found: dict[str, Task] = {}
    for part in suite_parts(suite):
        tasks, problems = scan_suite(suite_dir(part))
        for problem in problems:
            print(f"skipping task: {problem}", file=sys.stderr)
        for task in tasks:
            if task.id in found:
                raise TaskError(
                    f"task id '{task.id}' is in both {found[task.id].path.parent} and "
                    f"{task.path.parent}; rename one of the folders or drop one suite."
                )
            found[task.id] = task
    return sorted(found.values(), key=lambda t: t.id)


def workspace_files(task: Task) -> dict[str, bytes]:
    """Initial files of the task's working directory, relative path -> content."""
    root = task.path / "environment" / "workspace"
    return folder_files(root) if root.is_dir() else {}


def folder_files(root: Path) -> dict[str, bytes]:
    """Every file under `root` as relative path -> content (for shipping to Ray workers)."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def reference_steps(task: Task) -> list[str]:
    """The reference solution as steps: blocks of solve.sh separated by blank lines.

    Leading comment lines of a block (and the shebang) are dropped; a block's body is kept
    verbatim so heredocs keep their own `#` lines.
    """
    path = task.path / "solution" / "solve.sh"
    if not path.is_file():
        path = task.path / "solution.sh"  # Terminal-Bench layout
    if not path.is_file():
        return []
    steps = []
    for block in path.read_text().split("\n\n"):
        lines = block.strip("\n").splitlines()
        while lines and (not lines[0].strip() or lines[0].lstrip().startswith("#")):
            lines.pop(0)
        if lines:
            steps.append("\n".join(lines))
    return steps
