"""`harnesspro evolve` and `harnesspro eval`: run (or resume) an evolution, and the held-out
evaluation of its operating points."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from harnesspro.cli.handlers import Handler
from harnesspro.cli.progress import ConsoleProgress
from harnesspro.cli.results import cmd_report_paths
from harnesspro.cli.transfer import cmd_transfer, wants_transfer
from harnesspro.core.config import load_config
from harnesspro.core.config_base import MAX_REPEATS, ConfigError
from harnesspro.evaluation.heldout import open_run
from harnesspro.evolution.finish import finish_run
from harnesspro.evolution.loop import run_evolution
from harnesspro.execution.scheduler import check_cluster
from harnesspro.run.context import RunContext, choose_tasks
from harnesspro.run.estimate import estimate_run
from harnesspro.run.folder import RunFolder, default_run_dir
from harnesspro.run.local_model import served
from harnesspro.run.spend_guard import describe, past_cap, uncapped
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.cgroup import unenforced_limits
from harnesspro.sandbox.local import LOCAL_WARNING


def register(sub: argparse._SubParsersAction) -> dict[str, Handler]:
    """Add `evolve` and `eval`."""
    evolve = sub.add_parser("evolve", help="run (or resume) an evolution")
    evolve.add_argument("--config", required=True, type=Path)
    evolve.add_argument("--run-dir", type=Path, help="default: runs/<name>-<config hash>")
    evolve.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE")
    evolve.add_argument(
        "--dry-run",
        action="store_true",
        help="validate the config and print the run's estimated spend; run nothing",
    )
    evolve.add_argument(
        "--yes",
        action="store_true",
        help="start even when the estimated spend is past a cap, or a paid model has none",
    )
    held_out = sub.add_parser("eval", help="held-out test evaluation of seed and lite/medium/heavy")
    held_out.add_argument("run_dir", type=Path)
    held_out.add_argument("--attempts", type=int, metavar="K", help="default: the config's (3)")
    held_out.add_argument(
        "--config", type=Path, help="transfer: re-run it on this config's model (and prices)"
    )
    held_out.add_argument("--model", metavar="NAME", help="transfer: on this model name")
    held_out.add_argument(
        "--set", action="append", default=[], metavar="model.KEY=VALUE",
        help="transfer: the run's model with this change (e.g. model.behaviour.seed=7)",
    )  # fmt: skip
    held_out.add_argument("--name", help="transfer folder under RUN/transfers/ (default: model)")
    return {"evolve": cmd_evolve, "eval": cmd_eval}


def cmd_evolve(args: argparse.Namespace, console: Console) -> int:
    config = load_config(args.config, args.set)
    chosen = choose_tasks(config)
    spend = estimate_run(config, chosen)
    for line in describe(spend, config):
        console.print(line, markup=False)
    over = uncapped(spend, config) or past_cap(spend, config)
    if args.dry_run:
        console.print(f"dry run: {args.config} is valid; nothing was run.", markup=False)
        if over:
            console.print(f"note: {over}", markup=False)
        return 0
    run = RunFolder((args.run_dir or default_run_dir(config)).resolve())
    if over and not args.yes and not run.ledger.is_file():  # a resumed run was approved
        raise ConfigError(f"{args.config}: {over}")
    check_cluster(config.ray)
    if config.sandbox.backend == "bubblewrap":
        Bubblewrap()  # fail early, before anything is written, when the sandbox cannot run
    console.print(f"run folder: {run.root}")
    for note in unenforced_limits():  # said once, at start
        console.print(f"warning: sandbox limit not enforced here: {note}", markup=False)
    if config.sandbox.backend == "local":
        console.print(LOCAL_WARNING, markup=False)
    ctx = RunContext.open(config, run, console, ConsoleProgress(console), chosen)
    for line in ctx.skipped:
        console.print(line, markup=False)
    if ctx.ledger.meta("status") == "complete":
        console.print("this run is complete; nothing to do (reports below).")
    with served(ctx) as live:
        run_evolution(live)
    return cmd_report_paths(run.root, console)


def cmd_eval(args: argparse.Namespace, console: Console) -> int:
    if args.attempts is not None and not 1 <= args.attempts <= MAX_REPEATS:
        raise ConfigError(f"--attempts {args.attempts}: K must be from 1 to {MAX_REPEATS}.")
    if wants_transfer(args):
        return cmd_transfer(args, console, args.attempts)
    if args.name:
        raise ConfigError("--name names a transfer folder; pass --config, --model or --set too.")
    ctx = open_run(args.run_dir, console, ConsoleProgress(console))
    for line in ctx.skipped:
        console.print(line, markup=False)
    if ctx.config.sandbox.backend == "bubblewrap":
        Bubblewrap()  # fail before any rollout when the sandbox cannot run
    with served(ctx) as live:
        finish_run(live, args.attempts or ctx.config.evaluation.attempts)
    return 0
