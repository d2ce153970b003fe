"""Issue 50: no pandas DataFrame or Series in a signature outside the ledger and the reports.

Steps pass typed records (core/records.py) to each other; only the ledger (the one place that
knows SQL) and the reports (pure frames, then drawing) speak in frames. Read from the source
with `ast`, annotations as text, so the check never depends on what imports what."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "harnesspro"
ALLOWED = ("core/ledger.py", "reports/")
FRAME = re.compile(r"\b(DataFrame|Series)\b")
# Modules still to convert (issue 50): each must still offend, so the list only shrinks.
PENDING = frozenset({"bench/paired.py", "bench/pool.py", "bench/report.py"})


def annotations(tree: ast.Module) -> Iterator[tuple[str, int, str]]:
    """(where, line, annotation text) for every parameter, return and class-body field."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
            for arg in params:
                if arg is not None and arg.annotation is not None:
                    yield f"{node.name}({arg.arg})", arg.lineno, ast.unparse(arg.annotation)
            if node.returns is not None:
                yield f"{node.name} ->", node.lineno, ast.unparse(node.returns)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    where = f"{node.name}.{item.target.id}"
                    yield where, item.lineno, ast.unparse(item.annotation)


def offenders() -> list[str]:
    """`path:line where: annotation` for each annotation naming a DataFrame or Series."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(ALLOWED):
            continue
        for where, line, text in annotations(ast.parse(path.read_text())):
            if FRAME.search(text):
                found.append(f"{rel}:{line} {where}: {text}")
    return found


def test_no_frame_in_a_signature() -> None:
    found = [f for f in offenders() if f.split(":")[0] not in PENDING]
    assert not found, "typed records, not frames, in these signatures:\n" + "\n".join(found)


def test_pending_modules_still_pending() -> None:
    still = {f.split(":")[0] for f in offenders()}
    assert still >= PENDING, f"converted, so drop from PENDING: {sorted(PENDING - still)}"


def test_the_check_sees_frames() -> None:
    source = (
        "from dataclasses import dataclass\n"
        "def f(a: pd.DataFrame, *, b: 'pd.Series | None' = None) -> list[int]: ...\n"
        "async def g() -> dict[str, DataFrame]: ...\n"
        "@dataclass\nclass C:\n    rows: pd.DataFrame\n    n: int\n"
    )
    texts = [text for _, _, text in annotations(ast.parse(source))]
    assert [t for t in texts if FRAME.search(t)] == [
        "pd.DataFrame", "'pd.Series | None'", "dict[str, DataFrame]", "pd.DataFrame"
    ]  # fmt: skip
