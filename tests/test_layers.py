"""The package's shape: no import cycle (imports inside functions count), and each layer
imports only from its own layer or those below (`LAYERS`, bottom first)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import harnesspro

PACKAGE = Path(harnesspro.__file__).parent
# Bottom first; entries on one line form one layer. A module's layer is that of the longest
# entry that is a prefix of its dotted name below `harnesspro` (a package, or a package's
# sub-package): `improvers.planner.llm` is in the layer of `improvers.planner`.
LAYERS = [
    ["core"],
    ["sandbox"],
    ["tasks"],
    ["execution.fakes"],
    ["execution"],
    ["harness"],
    ["improvers"],
    ["improvers.analyzer", "improvers.planner", "improvers.editor"],
    ["improvers.testsynth"],
    ["improvers.roles"],
    ["improvers.retro"],
    ["run"],
    ["evaluation"],
    ["evaluation.selection", "reports"],
    ["reports.export"],
    ["evolution"],
    ["bench"],
    ["cli"],
    ["evolve", "__main__"],
]
# Folders of package data run in the sandbox or by users, never imported by the package.
DATA = ("tasks/builtin", "tasks/grader", "harness/seed", "harness/bundled", "improvers/prompts")
# Imports placed inside functions, each with its reason: optional or slow-to-import
# dependencies only, never a module of this package.
LOCAL_IMPORTS: Mapping[str, str] = {}


def modules(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package under `root`."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if any(rel.as_posix().startswith(d + "/") for d in DATA):
            continue
        parts = [root.name, *rel.with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(path: Path, known: Mapping[str, Path]) -> Iterator[tuple[str, int, bool]]:
    """(imported module of the package, line, inside a function?) for each import in a file."""
    tree = ast.parse(path.read_text())
    local = {
        id(node)
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(fn)
    }
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            target = _owner(name, known)
            if target is not None:
                yield target, node.lineno, id(node) in local
                break


def _owner(name: str, known: Mapping[str, Path]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (anywhere in the file)."""
    known = modules(root)
    return {m: {t for t, _, _ in imports(p, known) if t != m} for m, p in known.items()}


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def layer_of(module: str) -> int:
    rest = module.split(".")[1:]
    while rest:
        for level, entries in enumerate(LAYERS):
            if ".".join(rest) in entries:
                return level
        rest.pop()
    return -1  # the package's face (harnesspro/__init__.py): below everything


def test_every_module_has_a_layer() -> None:
    assert [m for m in modules(PACKAGE) if "." in m and layer_of(m) < 0] == []


def test_no_import_cycle_counting_imports_inside_functions() -> None:
    assert cycles(graph(PACKAGE)) == []


def test_a_planted_cycle_is_found(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from pkg import c\n")
    (pkg / "c.py").write_text("import pkg.a\n")
    assert cycles(graph(pkg)) == [["pkg.a", "pkg.c", "pkg.sub.b"]]


def test_layers_import_only_downward() -> None:
    known = modules(PACKAGE)
    upward = [
        f"{m} (layer {layer_of(m)}) imports {t} (layer {layer_of(t)}) at line {line}"
        for m, path in known.items()
        for t, line, _ in imports(path, known)
        if layer_of(t) > layer_of(m)
    ]
    assert upward == []


def test_no_module_of_the_package_is_imported_inside_a_function() -> None:
    known = modules(PACKAGE)
    local = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {t}"
        for path in known.values()
        for t, line, inside in imports(path, known)
        if inside
    ]
    assert local == []


def test_the_public_surface_is_what_it_says() -> None:
    # Changing it is an API change: update this list on purpose, and the docs with it.
    assert sorted(harnesspro.__all__) == sorted(
        [
            "__version__",
            "RunConfig",
            "load_config",
            "main",
            "OperatingPoint",
            "load_operating_points",
            "export_operating_point",
        ]
    )
    for name in harnesspro.__all__:
        assert getattr(harnesspro, name) is not None


def console_writes(path: Path) -> list[int]:
    """Lines where a file writes to a console (`<...>.console.print(...)`, `console.rule`), or
    hands one to something that draws on it (`Progress(console=...)`)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and any(k.arg == "console" for k in node.keywords):
            lines.append(node.lineno)
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value
        name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if name == "console" and node.func.attr in ("print", "rule", "log"):
            lines.append(node.lineno)
    return lines


def test_only_the_orchestration_and_the_commands_write_the_console() -> None:
    below = LAYERS.index(["evolution"])  # the epoch loop, and everything above it
    writers = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for module, path in modules(PACKAGE).items()
        if layer_of(module) < below
        for line in console_writes(path)
    ]
    assert writers == []


def test_a_console_handed_to_a_drawer_counts_as_a_write(tmp_path: Path) -> None:
    drawer = tmp_path / "drawer.py"
    drawer.write_text("def f(ctx):\n    with Progress(console=ctx.console):\n        pass\n")
    assert console_writes(drawer) == [2]
