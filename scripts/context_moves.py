"""Follow the run context through one run and count its moves between modules.

Static AST call graph from `harnesspro.evolution.loop.run_evolution`: inside a function that
holds the context (a parameter named `ctx` or annotated `RunContext`, or a name assigned from
one), every call that passes the context on, or calls a method of it (`ctx.scores()`,
`ctx.ledger.rollouts()`), is an edge to the callee's module; calls into package functions are
followed. An edge counts once per (caller, callee) pair. A move is an edge between two
modules; it runs back up when the callee sits in a higher layer than the caller (the layer
table of tests/test_layers.py). Calls through values picked at run time (a strategy chosen by
name) are not followed; each such call is followed into every
method of that name (e.g. every strategy's `propose`), and the script lists them.

    .venv/bin/python scripts/context_moves.py
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from test_layers import PACKAGE, layer_of, modules  # noqa: E402

START = "harnesspro.evolution.loop.run_evolution"
# What the context's attributes are: the class that owns each method chain.
CONTEXT = "harnesspro.run.context.RunContext"
ATTRIBUTES = {
    "ledger": "harnesspro.core.ledger.Ledger",
    "run": "harnesspro.run.folder.RunFolder",
    "repo": "harnesspro.harness.repo.HarnessRepo",
    "splits": "harnesspro.tasks.splits.Splits",
}


@dataclass(frozen=True)
class Function:
    qualname: str  # dotted, module first
    module: str
    node: ast.FunctionDef | ast.AsyncFunctionDef


def index() -> tuple[dict[str, Function], dict[str, dict[str, str]]]:
    """Every function and method of the package by dotted name, and each module's imports."""
    functions: dict[str, Function] = {}
    names: dict[str, dict[str, str]] = {}
    for module, path in modules(PACKAGE).items():
        tree = ast.parse(path.read_text())
        imported: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                imported[node.name] = f"{module}.{node.name}"
                functions[f"{module}.{node.name}"] = Function(f"{module}.{node.name}", module, node)
            elif isinstance(node, ast.ClassDef):
                imported[node.name] = f"{module}.{node.name}"
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        name = f"{module}.{node.name}.{item.name}"
                        functions[name] = Function(name, module, item)
        names[module] = imported
    return functions, names


def context_names(fn: Function) -> set[str]:
    """The names that hold the context inside a function."""
    held = set()
    for arg in [*fn.node.args.args, *fn.node.args.kwonlyargs]:
        note = ast.unparse(arg.annotation) if arg.annotation else ""
        if arg.arg == "ctx" or "RunContext" in note:
            held.add(arg.arg)
    if fn.qualname.startswith(CONTEXT + "."):
        held.add("self")
    for node in ast.walk(fn.node):  # fresh = replace(ctx, ...), ctx = refresh(ctx, ...)
        if isinstance(node, ast.Assign) and any(
            isinstance(n, ast.Name) and n.id in held for n in ast.walk(node.value)
        ):
            held |= {t.id for t in node.targets if isinstance(t, ast.Name) and t.id == "ctx"}
    return held


def callee(call: ast.Call, held: set[str], imported: dict[str, str]) -> str | None:
    """The dotted name a call reaches when it carries or uses the context, else None."""
    func = call.func
    chain: list[str] = []
    while isinstance(func, ast.Attribute):
        chain.insert(0, func.attr)
        func = func.value
    if isinstance(func, ast.Name) and func.id in held and chain:
        owner = ATTRIBUTES.get(chain[0]) if len(chain) > 1 else CONTEXT
        return f"{owner}.{chain[-1]}" if owner else None
    passes = any(isinstance(a, ast.Name) and a.id in held for a in call.args) or any(
        isinstance(k.value, ast.Name) and k.value.id in held for k in call.keywords
    )
    if passes and isinstance(func, ast.Name) and not chain:
        return imported.get(func.id, f"<dynamic>.{func.id}")
    if passes:
        return f"<dynamic>.{ast.unparse(call.func)}"
    return None


def module_of(name: str, functions: dict[str, Function]) -> str | None:
    if name in functions:
        return functions[name].module
    known = modules(PACKAGE)
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def overriders(method: str, functions: dict[str, Function]) -> list[str]:
    """Every method of that name in the package: where a value picked at run time can go."""
    return [
        q
        for q in functions
        if q.endswith(f".{method}")
        and q.count(".") > 2
        and q.rpartition(".")[0] not in functions
        and q.split(".")[-2][:1].isupper()
    ]


def walk() -> tuple[set[tuple[str, str]], list[str]]:
    functions, names = index()
    edges: set[tuple[str, str]] = set()
    dynamic: list[str] = []
    todo, seen = [START], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        fn = functions[name]
        held = context_names(fn)
        for node in ast.walk(fn.node):
            if not isinstance(node, ast.Call):
                continue
            target = callee(node, held, names[fn.module])
            if target is None:
                continue
            if target.startswith("<dynamic>"):
                dynamic.append(f"{name}: {target.split('.', 1)[1]}")
                targets = overriders(target.rpartition(".")[2], functions)
            else:
                targets = [target]
            for each in targets:
                edges.add((name, each))
                todo.append(each)
    return edges, dynamic


def main() -> None:
    functions, _ = index()
    edges, dynamic = walk()
    moves = []
    for caller, target in sorted(edges):
        a, b = functions[caller].module, module_of(target, functions)
        if b is None or a == b:
            continue
        moves.append((caller, target, layer_of(a), layer_of(b)))
    upward = [m for m in moves if m[3] > m[2]]
    print(f"calls carrying the run context: {len(edges)} (distinct caller -> callee)")
    print(f"moves between modules: {len(moves)}; back up to a higher layer: {len(upward)}")
    for caller, target, la, lb in upward:
        print(f"  up: {caller} (layer {la}) -> {target} (layer {lb})")
    print(
        f"calls through a value picked at run time (followed into every method of that name): "
        f"{len(set(dynamic))}"
    )
    for line in sorted(set(dynamic)):
        print(f"  {line}")


if __name__ == "__main__":
    main()
