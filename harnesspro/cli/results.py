"""`harnesspro report`, `points`, `export`, `dashboard`, `export-trajectories`: what a run
gave, read from its folder."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from harnesspro.cli.handlers import Handler
from harnesspro.core.config_base import ConfigError
from harnesspro.core.ledger import Ledger
from harnesspro.core.money import dollars, tokens
from harnesspro.reports import agreement, budget, frames
from harnesspro.reports.dashboard import write_dashboard
from harnesspro.reports.decision import decision_report, write_decision
from harnesspro.reports.decision_view import decision_lines
from harnesspro.reports.export.harness import export_operating_point
from harnesspro.reports.export.trajectories import FORMATS, SPLITS, export
from harnesspro.reports.findings import finding_lines
from harnesspro.reports.index import write_index
from harnesspro.reports.lever_effects import effect_lines
from harnesspro.reports.removal import load_removal, removal_lines
from harnesspro.reports.rundata import load_run
from harnesspro.reports.search_costs import describe_search_costs
from harnesspro.run.operating_points import OperatingPoint, RunNotFound, load_operating_points

MODES_ORDER = {"lite": 0, "medium": 1, "heavy": 2}


def register(sub: argparse._SubParsersAction) -> dict[str, Handler]:
    """Add the commands that read a run folder."""
    report = sub.add_parser("report", help="summarise a run")
    report.add_argument("run_dir", type=Path)
    # `profiles` and `--profile`: the names before "profile" came to mean the behaviour profile
    # only; kept as aliases for one release
    points = sub.add_parser(
        "points", aliases=["profiles"], help="the lite/medium/heavy operating points"
    )
    points.add_argument("run_dir", type=Path)
    points.add_argument("--json", action="store_true")
    export = sub.add_parser("export", help="write an operating point's harness to a directory")
    export.add_argument("run_dir", type=Path)
    export.add_argument(
        "--point", "--profile", dest="point", required=True, choices=sorted(MODES_ORDER)
    )
    export.add_argument("--out", required=True, type=Path)
    dashboard = sub.add_parser("dashboard", help="a run's HTML dashboard, or the runs index")
    dashboard.add_argument("run_dir", type=Path, nargs="?")
    dashboard.add_argument("--out", type=Path, help="default: RUN/dashboard.html")
    dashboard.add_argument(
        "--index", type=Path, metavar="RUNS", help="write dashboards/index.html over RUNS/*"
    )
    trajectories = sub.add_parser(
        "export-trajectories", help="rollouts with rewards in a trainer-ready JSONL"
    )
    trajectories.add_argument("run_dir", type=Path)
    trajectories.add_argument("--split", default="coreset", choices=SPLITS)
    trajectories.add_argument("--format", default="openai-chat", choices=FORMATS)
    trajectories.add_argument("--out", required=True, type=Path)
    return {
        "report": cmd_report,
        "points": cmd_points,
        "profiles": cmd_points,
        "export": cmd_export,
        "dashboard": cmd_dashboard,
        "export-trajectories": cmd_export_trajectories,
    }


def points_table(points: list[OperatingPoint]) -> Table:
    table = Table(title="operating points")
    for column in ("point", "candidate", "mechanisms", "pass rate", "$/task", "tokens/task"):
        # a point's mechanisms are one long name joined by '+': fold it, never cut it
        table.add_column(column, overflow="fold", no_wrap=False)
    for p in sorted(points, key=lambda p: MODES_ORDER.get(p.mode, 9)):
        table.add_row(
            p.mode,
            p.candidate,
            p.mechanisms.replace("+", " + "),  # wraps between mechanisms
            f"{p.pass_rate:.1%}",
            dollars(p.cost_per_task),
            tokens(p.tokens_per_task).removesuffix(" tokens"),
        )
    return table


def cmd_report_paths(run_dir: Path, console: Console) -> int:
    points = load_operating_points(run_dir)
    console.print(points_table(points))
    data = load_run(run_dir)
    for choice in frames.choices(data, frames.fronts(data)):
        console.print(f"  {choice.why}", markup=False)
    last = run_dir / "reports" / f"epoch-{points[0].epoch}"
    console.print(f"Pareto front: {last / 'pareto.html'}")
    console.print(f"cost report:  {last / 'costs.csv'}")
    if (run_dir / "reports" / "decision.json").is_file():
        console.print(f"decision:     {run_dir / 'reports' / 'decision.json'}")
    console.print(f"dashboard:    {run_dir / 'dashboard.html'}")
    return 0


def cmd_report(args: argparse.Namespace, console: Console) -> int:
    load_operating_points(args.run_dir)
    ledger = Ledger(args.run_dir / "ledger.sqlite")
    epochs = ledger.finished_epochs().set_index("epoch")["hypervolume"]
    for epoch, rows in ledger.selections().groupby("epoch"):
        picks = ", ".join(
            f"{r['mode']} {r['candidate_id']} ({r['pass_rate']:.0%}, {dollars(r['cost'])})"
            for r in rows.to_dict("records")
        )
        console.print(f"epoch {epoch}: hypervolume {epochs[epoch]:.4f}; {picks}")
    search = describe_search_costs(ledger)
    trail = finding_lines(ledger.plans())
    stopped = ledger.meta("stopped")
    ledger.close()
    if stopped:
        console.print(f"stopped early: {stopped}", markup=False)
    if trail:
        console.print("finding -> change -> verdict:", markup=False)
    for line in trail:
        console.print(f"  {line}", markup=False)
    for line in [*agreement.load_lines(args.run_dir), *budget.load_lines(args.run_dir), search]:
        console.print(line, markup=False)
    data = load_run(args.run_dir)
    for line in effect_lines(frames.lever_effect_table(data), data.confidence):
        console.print(line, markup=False)
    for line in removal_lines(load_removal(args.run_dir)):
        console.print(line, markup=False)
    decision = decision_report(data)
    if decision is not None:  # rebuilt from the ledger each time, like the dashboard
        write_decision(decision, args.run_dir / "reports")
        for line in decision_lines(decision):
            console.print(line, markup=False)
    return cmd_report_paths(args.run_dir, console)


def cmd_points(args: argparse.Namespace, console: Console) -> int:
    points = load_operating_points(args.run_dir)
    if args.json:
        print(json.dumps({p.mode: p.as_dict() for p in points}, indent=2))
    else:
        console.print(points_table(points))
    return 0


def cmd_export(args: argparse.Namespace, console: Console) -> int:
    point = next((p for p in load_operating_points(args.run_dir) if p.mode == args.point), None)
    if point is None:
        raise RunNotFound(f"{args.run_dir}: no '{args.point}' operating point in the last epoch.")
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        raise ConfigError(f"{args.out}: exists and is not empty; pass an empty or new --out.")
    data = load_run(args.run_dir)
    seed = data.candidates[data.candidates["id"] == "c000"]["commit"]
    export_operating_point(data, point, args.out, None if seed.empty else str(seed.iloc[0]))
    console.print(
        f"wrote {point.mode} ({point.candidate}, {point.commit[:10]}) to {args.out}: "
        "the harness, README.md (how to run it standalone) and provenance.json",
        markup=False,
    )
    return 0


def cmd_dashboard(args: argparse.Namespace, console: Console) -> int:
    if (args.run_dir is None) == (args.index is None):
        raise ConfigError("dashboard: pass a run folder, or --index RUNS (one of the two).")
    if args.index is not None:
        if not args.index.is_dir():
            raise ConfigError(f"--index {args.index}: not a directory; pass the runs/ folder.")
        path = write_index(args.index, args.out or Path("dashboards") / "index.html")
    else:
        path = write_dashboard(args.run_dir, args.out)
    console.print(f"wrote {path}", markup=False)
    return 0


def cmd_export_trajectories(args: argparse.Namespace, console: Console) -> int:
    if not (args.run_dir / "ledger.sqlite").is_file():
        raise RunNotFound(f"{args.run_dir}: no ledger.sqlite; pass a run folder.")
    count = export(args.run_dir, args.split, args.format, args.out)
    rewards = "official tests" if args.split == "test" else "synthesized tests"
    console.print(
        f"wrote {count} {args.split} rollouts ({args.format}, rewards from {rewards}) to "
        f"{args.out}",
        markup=False,
    )
    return 0
