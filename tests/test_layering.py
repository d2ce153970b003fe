"""Layering: the gateway meters model calls and must not depend on the improvers."""

from __future__ import annotations

import ast
from pathlib import Path

import harnesspro

PACKAGE = Path(harnesspro.__file__).parent
IMPROVER_PACKAGES = ("analyzer", "planner", "editor", "testsynth", "search", "roles", "improve")


def imported_modules(source: Path) -> set[str]:
    """Every module a file imports, at any depth (function-local imports included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_gateway_imports_no_improver_package() -> None:
    offending = {
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in (PACKAGE / "gateway").rglob("*.py")
        for module in imported_modules(path)
        if module.startswith(tuple(f"harnesspro.{p}" for p in IMPROVER_PACKAGES))
    }
    assert not offending


def test_the_check_sees_a_function_local_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from harnesspro.planner.catalog import plan_all\n")
    assert "harnesspro.planner.catalog" in imported_modules(probe)


def test_each_role_is_a_package_with_its_modes() -> None:
    for role, modes in {
        "analyzer": ("rules", "llm"),
        "planner": ("catalog", "llm"),
        "editor": ("apply", "llm"),
        "testsynth": ("offline", "frozen"),
    }.items():
        for mode in modes:
            assert (PACKAGE / role / f"{mode}.py").is_file(), f"{role}/{mode}.py"
