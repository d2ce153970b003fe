"""`harnesspro harness validate` and `harnesspro rollout`: check a harness against the
contract, and one rollout of it for debugging."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from harnesspro.cli.handlers import Handler
from harnesspro.cli.rollout import debug_rollout
from harnesspro.core.config_base import ConfigError
from harnesspro.core.money import dollars, tokens
from harnesspro.harness.validate import validate_harness


def register(sub: argparse._SubParsersAction) -> dict[str, Handler]:
    """Add `harness validate` and `rollout`."""
    harness = sub.add_parser("harness", help="work with a harness directory")
    harness_sub = harness.add_subparsers(dest="harness_command", required=True)
    validate = harness_sub.add_parser("validate", help="check a harness against the contract")
    validate.add_argument("dir", type=Path)
    validate.add_argument("--seed", type=Path, help="a seed whose immutable paths must match")
    rollout = sub.add_parser("rollout", help="one rollout of a harness on a task, for debugging")
    rollout.add_argument("--harness", required=True, type=Path)
    rollout.add_argument("--task", required=True, type=Path)
    rollout.add_argument("--model", default="scripted")
    rollout.add_argument("--config", type=Path, help="run config giving a real model's settings")
    rollout.add_argument("--out", required=True, type=Path)
    return {"harness": cmd_harness, "rollout": cmd_rollout}


def cmd_harness(args: argparse.Namespace, console: Console) -> int:
    if not args.dir.is_dir():
        raise ConfigError(f"{args.dir}: not a directory; pass the folder holding harness.toml.")
    problem = validate_harness(args.dir, args.seed)
    if problem:
        console.print(f"invalid: {problem}", markup=False)
        return 1
    console.print(f"{args.dir}: valid (manifest, immutable paths, code, smoke rollout)")
    return 0


def cmd_rollout(args: argparse.Namespace, console: Console) -> int:
    result = debug_rollout(args.harness, args.task, args.model, args.config, args.out)
    reason = f": {result.reason}" if result.reason else ""
    verdict = f" ({result.verifier.reason})" if result.verifier else ""
    console.print(
        f"status {result.status}{reason}; official tests "
        f"{'passed' if result.official_pass else 'failed'}{verdict}; {result.n_calls} model calls, "
        f"{tokens(None if result.usage is None else result.usage.total)}, {dollars(result.cost)}; "
        f"artifacts in {args.out}",
        markup=False,
    )
    return 0 if result.status == "ok" else 1
