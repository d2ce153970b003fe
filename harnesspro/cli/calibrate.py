"""`harnesspro calibrate`: a calibration table of harness variants on one model (the real
local model, or the scripted world for comparison), resumable, one JSON line per rollout."""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console

from harnesspro.bench.additive_fit import AdditiveFit, additive_fit
from harnesspro.bench.calibration import build_variant, load_plan, read_rows, run_table
from harnesspro.bench.calibration_report import Estimate, VariantRow, acts, report
from harnesspro.bench.world_compare import SideBySide, side_by_side
from harnesspro.cli.handlers import Handler
from harnesspro.cli.rollout import OneRollout
from harnesspro.core.config import load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.records import RolloutResult, Task
from harnesspro.execution.llama.server import ServerError, answers
from harnesspro.run.context import seed_template
from harnesspro.run.local_model import serving
from harnesspro.sandbox.snapshot import as_snapshot
from harnesspro.sandbox.snapshot import dumps as dumps_snapshot
from harnesspro.tasks.loader import load_task, suite_dir


def register(sub: argparse._SubParsersAction) -> dict[str, Handler]:
    """Add `calibrate`."""
    calibrate = sub.add_parser("calibrate", help="a calibration table of harness variants")
    calibrate.add_argument("plan", type=Path, help="the plan (YAML): variants, tasks, attempts")
    calibrate.add_argument("--config", type=Path, help="the model's run config (to run rows)")
    calibrate.add_argument(
        "--report", action="store_true", help="print what the table says so far; run nothing"
    )
    calibrate.add_argument("--out", required=True, type=Path, help="the table (JSONL), resumed")
    calibrate.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE")
    calibrate.add_argument("--tasks", help="comma-separated task ids instead of the plan's")
    calibrate.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="WORLD=GLOB",
        help="with --report: set the table beside a world's tables (one per drawn profile)",
    )
    return {"calibrate": cmd_calibrate}


def row(result: RolloutResult) -> dict[str, Any]:
    """A table row's measured fields."""
    events = [json.loads(line) for line in result.trajectory.splitlines() if line.strip()]
    usage = result.usage
    return {
        "status": result.status,
        "reason": result.reason[:200],
        "official_pass": result.official_pass,
        "calls": result.n_calls,
        "tool_calls": sum(e.get("type") == "tool_call" for e in events),
        "submitted": any(e.get("type") == "submit" for e in events),
        "input_tokens": None if usage is None else usage.uncached_input + usage.cached_input,
        "output_tokens": None if usage is None else usage.output,
        "cost": result.cost,
        "seconds": round(result.latency_s, 1),
    }


def cmd_calibrate(args: argparse.Namespace, console: Console) -> int:
    plan = load_plan(args.plan)
    if args.tasks:
        plan = plan.model_copy(update={"tasks": [t for t in args.tasks.split(",") if t]})
    if args.report:
        if args.config is not None or args.set:
            raise ConfigError(
                "harnesspro calibrate --report reads the table only; drop --config and --set."
            )
        rows = read_rows(args.out)
        if args.compare:
            worlds = {name: [read_rows(p) for p in paths] for name, paths in _worlds(args)}
            lines = describe_side_by_side(side_by_side(plan, rows, worlds))
            for line in lines:
                console.print(line, markup=False, highlight=False)
            return 0
        for line in [*describe(report(plan, rows)), fit_line(additive_fit(plan, rows))]:
            console.print(line, markup=False, highlight=False)
        return 0
    if args.compare:
        raise ConfigError("harnesspro calibrate: --compare goes with --report; add --report.")
    if args.config is None:
        raise ConfigError("harnesspro calibrate: give --config FILE to run rows, or --report.")
    if not plan.tasks:
        raise ConfigError(f"{args.plan}: the plan names no tasks; list them or pass --tasks.")
    one = OneRollout.of(load_config(args.config, args.set))
    suite = suite_dir(plan.suite)
    tasks: dict[str, Task] = {t: load_task(suite / t) for t in plan.tasks}
    work = args.out.with_name(args.out.stem + "-work")
    seed = one.run.harness.seed or seed_template()
    harnesses = {
        v.name: build_variant(seed, plan, v, args.plan.parent, work / "harnesses")
        for v in plan.variants
    }
    trajectories = args.out.with_name(args.out.stem + "-trajectories")

    with serving(one.run, work) as url:
        live = dataclasses.replace(one, model_url=url)

        def run_row(harness: Path, task: str, attempt: int) -> dict[str, Any]:
            result = live.roll(harness, tasks[task], f"{one.run.seed}:{task}:{attempt}")
            if result.status == "infra_error" and url is not None and not answers(url):
                raise ServerError(
                    f"the llama.cpp server stopped answering (log: {work / 'llama-server.log'});"
                    " the table keeps its rows: rerun the same command to resume."
                )
            kept = trajectories / harness.name / f"{task}-{attempt}.jsonl"
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_text(result.chat_log or result.trajectory)
            keep_workspace(kept.with_suffix(".workspace.json"), result.workspace)
            return row(result)

        written = run_table(plan, harnesses, args.out, run_row)
    console.print(f"{written} rollouts written to {args.out}", markup=False)
    return 0


KEPT_WORKSPACE_BYTES = 256 * 1024
"""A row's final working directory is kept beside its chat log (so the label-free scorer can
be measured on the real model's rollouts) up to this many bytes of files."""


def keep_workspace(path: Path, workspace: Mapping[str, bytes]) -> None:
    """The rollout's final working directory as one JSON file, unless it is too large."""
    snap = as_snapshot(workspace)
    if sum(len(data) for data in snap.files.values()) <= KEPT_WORKSPACE_BYTES:
        path.write_text(dumps_snapshot(snap))


def _interval(e: Estimate | None, scale: float = 100.0) -> str:
    if e is None:
        return "-"
    return f"{e.mean * scale:+.0f} [{e.low * scale:+.0f}, {e.high * scale:+.0f}]"


def describe(rows: list[VariantRow]) -> list[str]:
    """The table's report: one line per variant, then the shares a world must match."""
    head = f"{'variant':38} {'kind':9} {'n':>4} {'pass':>5} {'tokens':>7}  "
    lines = [head + "d pass pts [90%]   d tokens % [90%]   task SD  flips  interaction"]
    for r in rows:
        tokens = "?" if r.tokens is None else f"{r.tokens:.0f}"
        spread = "-" if r.task_spread is None else f"{r.task_spread * 100:.0f}"
        lines.append(
            f"{r.name[:38]:38} {r.kind:9} {r.rollouts:>4} {r.pass_rate:>5.2f} {tokens:>7}  "
            f"{_interval(r.pass_effect):18} {_interval(r.token_effect):18} {spread:>7}  "
            f"{r.flip_share:>5.2f}  {_interval(r.interaction)}"
        )
    changed = [r for r in rows if r.pass_effect is not None]
    for kind in ("single", "free-form"):
        some = [r for r in changed if r.kind == kind]
        acting = [r for r in some if acts(r)]
        if some:
            lines.append(f"{kind}: {len(acting)} of {len(some)} measure an effect (90%)")
    return lines


def fit_line(fit: AdditiveFit | None) -> str:
    """The additive fit over the catalog's bits, in one line."""
    if fit is None:
        return "additive fit over the catalog's bits: no scored candidates yet"
    return (
        f"additive fit over the catalog's bits: fitted on {fit.fitted} candidates, scored on"
        f" {fit.scored} ({fit.rows} rollouts): log loss {fit.additive_loss:.3f} vs task-only"
        f" {fit.task_only_loss:.3f} (gain {fit.gain:+.3f} nats a rollout)"
    )


def _worlds(args: argparse.Namespace) -> list[tuple[str, list[Path]]]:
    """--compare's WORLD=GLOB pairs, each glob's tables (a glob that matches none is an
    error)."""
    out = []
    for item in args.compare:
        name, sep, pattern = item.partition("=")
        if not sep or not name or not pattern:
            raise ConfigError(f"--compare {item}: write WORLD=GLOB, e.g. v3='tables/v3-*.jsonl'.")
        paths = [Path(p) for p in sorted(glob.glob(pattern))]
        if not paths:
            raise ConfigError(f"--compare {item}: no table matches {pattern}; check the path.")
        out.append((name, paths))
    return out


def _figure(value: float) -> str:
    return "-" if value != value else f"{value:+.2f}"


def describe_side_by_side(rows: list[SideBySide]) -> list[str]:
    """The real table's figures beside each world's 5-95% range, and whether each falls in."""
    names = list(rows[0].worlds) if rows else []
    head = f"{'figure':42} {'real':>6}" + "".join(f"  {n + ' 5-95%':>22}" for n in names)
    lines = [head]
    for r in rows:
        cells = []
        for n in names:
            w = r.worlds[n]
            inside = {True: "in", False: "OUT", None: "?"}[w.holds(r.real)]
            span = f"{_figure(w.low)}..{_figure(w.high)} ({w.profiles}) {inside}"
            cells.append(f"  {span:>22}")
        lines.append(f"{r.figure[:42]:42} {_figure(r.real):>6}" + "".join(cells))
    return lines
