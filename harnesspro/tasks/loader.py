"""Load Harbor-format task folders (task.toml, instruction.md, environment/, tests/, solution/)."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from harnesspro.records import Task


class TaskError(ValueError):
    """A malformed task folder; the message names the file and the reason."""


def builtin_suite_dir() -> Path:
    """The folder of the built-in suite shipped as package data."""
    return Path(str(resources.files("harnesspro.tasks") / "builtin"))


def load_task(folder: Path) -> Task:
    """Read one task folder into a `Task`, raising TaskError when it is malformed."""
    toml_path, instruction_path = folder / "task.toml", folder / "instruction.md"
    for required in (toml_path, instruction_path, folder / "tests" / "test.sh"):
        if not required.is_file():
            raise TaskError(f"{required}: missing; a Harbor task needs it.")
    try:
        meta = tomllib.loads(toml_path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{toml_path}: not valid TOML ({exc}).") from None
    own = meta.get("harnesspro", {})
    return Task(
        id=folder.name,
        instruction=instruction_path.read_text().strip(),
        workdir=str(own.get("workdir", "/workspace")),
        category=str(meta.get("metadata", {}).get("category", "uncategorised")),
        difficulty=str(meta.get("metadata", {}).get("difficulty", "unknown")),
        timeout_s=float(meta.get("agent", {}).get("timeout_sec", 600.0)),
        path=folder.resolve(),
    )


def load_suite(suite: str) -> list[Task]:
    """All tasks of a suite (`builtin` or a folder), sorted by id.

    Malformed folders are reported on stderr and skipped, never fatal.
    """
    root = builtin_suite_dir() if suite == "builtin" else Path(suite)
    if not root.is_dir():
        raise TaskError(f"{root}: task suite folder not found; fix `tasks.suite`.")
    tasks = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        try:
            tasks.append(load_task(folder))
        except TaskError as exc:
            import sys

            print(f"skipping task: {exc}", file=sys.stderr)
    return tasks


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
        return []
    steps = []
    for block in path.read_text().split("\n\n"):
        lines = block.strip("\n").splitlines()
        while lines and (not lines[0].strip() or lines[0].lstrip().startswith("#")):
            lines.pop(0)
        if lines:
            steps.append("\n".join(lines))
    return steps
