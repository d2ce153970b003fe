"""`harnesspro eval RUN --config FILE | --model NAME | --set model.KEY=VALUE`: the run's
held-out evaluation re-run on another model, written to RUN/transfers/NAME/ beside the run's
own reports (which it never touches)."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from rich.console import Console

from harnesspro.cli.progress import ConsoleProgress
from harnesspro.core.config import RunConfig, load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.evaluation.heldout import FinalReport, open_run
from harnesspro.evaluation.transfer import (
    TRANSFERS,
    open_transfer,
    run_transfer,
    transfer_config,
    transfer_name,
)
from harnesspro.reports.dashboard import write_dashboard
from harnesspro.reports.decision import decision_report, write_decision
from harnesspro.reports.decision_view import decision_lines
from harnesspro.reports.final import band_line, final_table, write_final
from harnesspro.reports.rundata import load_run
from harnesspro.run.local_model import served
from harnesspro.sandbox.bubblewrap import Bubblewrap

TRANSFER_KEYS = ("model.", "prices.")


def wants_transfer(args: argparse.Namespace) -> bool:
    return bool(args.config or args.model or args.set)


def other_config(args: argparse.Namespace, run_config: Path) -> RunConfig:
    """The config whose model the transfer uses: FILE's (with --set), else the run's own
    with --model / --set applied (only model.* and prices.* may change)."""
    for assignment in args.set:
        if not assignment.startswith(TRANSFER_KEYS):
            raise ConfigError(
                f"--set {assignment}: a transfer changes only the model; pass model.KEY=VALUE "
                "or prices.KEY=VALUE (tasks, splits and K stay the run's)."
            )
    overrides = [*args.set, *([f"model.name={args.model}"] if args.model else [])]
    return load_config(args.config or run_config, overrides)


def comparison_lines(original: dict[str, Any] | None, report: FinalReport) -> list[str]:
    """Each harness's held-out pass rate on the run's model beside this one's."""
    if not original:
        return []
    before = {str(h["candidate_id"]): h.get("pass_rate") for h in original["harnesses"]}
    lines = ["transfer: held-out pass rate on the run's model -> on this one"]
    for h in report.harnesses:
        was = before.get(h.candidate_id)
        old = "n/a" if not isinstance(was, float) or math.isnan(was) else f"{was:.1%}"
        new = "n/a" if math.isnan(h.pass_rate) else f"{h.pass_rate:.1%}"
        lines.append(f"  {h.harness} ({h.candidate_id}): {old} -> {new}")
    return lines


def cmd_transfer(args: argparse.Namespace, console: Console, attempts: int | None) -> int:
    ctx = open_run(args.run_dir, console, ConsoleProgress(console))
    config = transfer_config(ctx.config, other_config(args, args.run_dir / "config.yaml"))
    folder = args.run_dir / TRANSFERS / (args.name or transfer_name(config))
    other = open_transfer(ctx, config, folder)
    if config.sandbox.backend == "bubblewrap":
        Bubblewrap()  # fail before any rollout when the sandbox cannot run
    console.rule(f"transfer to {config.model.name}: held-out evaluation in {other.run.root}")
    with served(other) as live:
        report = run_transfer(ctx, live, attempts or ctx.config.evaluation.attempts)
    write_final(report, other.run.reports())
    console.print(final_table(report))
    console.print(band_line(report), markup=False)
    original = args.run_dir / "reports" / "final.json"
    found = json.loads(original.read_text()) if original.is_file() else None
    decision = decision_report(load_run(other.run.root))
    if decision is not None:
        write_decision(decision, other.run.reports())
    lines = [*comparison_lines(found, report), *(decision_lines(decision) if decision else [])]
    for line in lines:
        console.print(line, markup=False)
    console.print(f"report: {other.run.reports() / 'final.json'}", markup=False)
    console.print(f"dashboard: {write_dashboard(other.run.root)}", markup=False)
    return 0
