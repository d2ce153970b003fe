"""Measure which output rewrites (harnesspro/execution/fakes/variants.py) each built-in
task's official tests accept, and write harnesspro/execution/fakes/variants.json.

For every task and every output file the reference solution writes, and every rewrite kind
that applies to that file's suffix: lay out the workspace, run the reference steps and the
rewrite in the sandbox, run the official verifier. Kept only when it passes.

    PYTHONPATH=$PWD .venv/bin/python scripts/check_output_variants.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from harnesspro.core.records import Task
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.fakes.variants import KINDS, rewrite_command
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.loader import load_suite, reference_steps
from harnesspro.tasks.runtime import grade, run_steps

OUT = Path(__file__).resolve().parent.parent / "harnesspro" / "fakes" / "variants.json"


def passes(task: Task, extra: list[str], tmp: Path) -> bool:
    """Reference steps, then `extra` commands, then the official tests."""
    layout = run_steps(task, [*reference_steps(task), *extra], tmp / "task", Bubblewrap())
    return grade(task, layout, Bubblewrap()).passed


def written_files(task: Task) -> list[str]:
    """The outputs named in the instruction that the reference leaves as regular files."""
    prefix = task.workdir.rstrip("/") + "/"
    with tempfile.TemporaryDirectory() as tmp:
        layout = run_steps(task, reference_steps(task), Path(tmp) / "task", Bubblewrap())
        work = layout.host(task.workdir)
        return [
            path
            for path in script_for(task).outputs
            if path.startswith(prefix)
            and (work / path[len(prefix) :]).is_file()
            and not (work / path[len(prefix) :]).is_symlink()
        ]


def candidates(task: Task) -> list[tuple[str, str]]:
    """(file, kind) for each file the reference writes and each kind applying to it."""
    files = written_files(task)
    return [(f, k) for f in files for k, (applies, _) in KINDS.items() if applies(f)]


def main() -> None:
    table: dict[str, list[tuple[str, str]]] = {}
    for task in load_suite("builtin"):
        kept = []
        for path, kind in candidates(task):
            with tempfile.TemporaryDirectory() as tmp:
                ok = passes(task, [rewrite_command(kind, path)], Path(tmp))
            print(f"{task.id:28} {path:40} {kind:20} {'accepted' if ok else 'rejected'}")
            kept += [(path, kind)] if ok else []
        if kept:
            table[task.id] = kept
    OUT.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"{sum(map(len, table.values()))} accepted rewrites over {len(table)} tasks -> {OUT}")


if __name__ == "__main__":
    main()
