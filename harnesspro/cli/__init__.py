"""The `harnesspro` command: evolve, report, profiles, export."""

from __future__ import annotations

import argparse
import errno
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from harnesspro.bench.command import cmd_bench
from harnesspro.bench.command import register as register_bench
from harnesspro.cli.doctor import ready, render, run_checks
from harnesspro.cli.rollout import debug_rollout
from harnesspro.cli.tasks import register as register_task_commands
from harnesspro.core.config import MAX_REPEATS, ConfigError, RunConfig, load_config
from harnesspro.core.ledger import Ledger, LedgerDamaged
from harnesspro.core.money import dollars, tokens
from harnesspro.evaluation.engine import check_ray
from harnesspro.evaluation.heldout import open_run
from harnesspro.evolution.loop import finish_run, run_evolution
from harnesspro.export.harness import export_profile
from harnesspro.export.trajectories import FORMATS, SPLITS, export
from harnesspro.harness.validate import validate_harness
from harnesspro.improvers.account import describe_search_costs
from harnesspro.reports import agreement, budget
from harnesspro.reports.dashboard import write_dashboard
from harnesspro.reports.index import write_index
from harnesspro.reports.rundata import load_run
from harnesspro.retro.run import llm_roles, retro
from harnesspro.retro.sessions import ADAPTERS, load_adapter, read_sessions
from harnesspro.run.context import RunContext
from harnesspro.run.folder import RunFolder, default_run_dir
from harnesspro.run.operating_points import Profile, RunNotFound, load_profiles
from harnesspro.sandbox import LOCAL_WARNING, Bubblewrap, SandboxUnavailable
from harnesspro.sandbox.cgroup import unenforced_limits
from harnesspro.tasks.loader import TaskError
from harnesspro.tasks.toolenv import ToolEnvError
from harnesspro.testsynth.frozen import FrozenTestChanged

USER_ERRORS = (
    ConfigError,
    TaskError,
    RunNotFound,
    SandboxUnavailable,
    ToolEnvError,
    LedgerDamaged,
    FrozenTestChanged,
)
"""What a user can cause or fix: one sentence on stderr and exit 2, never a traceback."""
MODES_ORDER = {"lite": 0, "medium": 1, "heavy": 2}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="harnesspro", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("doctor", help="check that this machine can run the quickstart (run it first)")
    evolve = sub.add_parser("evolve", help="run (or resume) an evolution")
    evolve.add_argument("--config", required=True, type=Path)
    evolve.add_argument("--run-dir", type=Path, help="default: runs/<name>-<config hash>")
    evolve.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE")
    report = sub.add_parser("report", help="summarise a run")
    report.add_argument("run_dir", type=Path)
    profiles = sub.add_parser("profiles", help="the lite/medium/heavy operating points")
    profiles.add_argument("run_dir", type=Path)
    profiles.add_argument("--json", action="store_true")
    export = sub.add_parser("export", help="write a profile's harness to a directory")
    export.add_argument("run_dir", type=Path)
    export.add_argument("--profile", required=True, choices=sorted(MODES_ORDER))
    export.add_argument("--out", required=True, type=Path)
    dashboard = sub.add_parser("dashboard", help="a run's HTML dashboard, or the runs index")
    dashboard.add_argument("run_dir", type=Path, nargs="?")
    dashboard.add_argument("--out", type=Path, help="default: RUN/dashboard.html")
    dashboard.add_argument(
        "--index", type=Path, metavar="RUNS", help="write dashboards/index.html over RUNS/*"
    )
    held_out = sub.add_parser("eval", help="held-out test evaluation of seed and lite/medium/heavy")
    held_out.add_argument("run_dir", type=Path)
    held_out.add_argument("--attempts", type=int, metavar="K", help="default: the config's (3)")
    trajectories = sub.add_parser(
        "export-trajectories", help="rollouts with rewards in a trainer-ready JSONL"
    )
    trajectories.add_argument("run_dir", type=Path)
    trajectories.add_argument("--split", default="coreset", choices=SPLITS)
    trajectories.add_argument("--format", default="openai-chat", choices=FORMATS)
    trajectories.add_argument("--out", required=True, type=Path)
    retro = sub.add_parser("retro", help="plans and candidates from recorded sessions")
    retro.add_argument("--sessions", required=True, type=Path)
    retro.add_argument("--harness", required=True, type=Path)
    retro.add_argument("--out", required=True, type=Path)
    retro.add_argument(
        "--adapter", action="append", metavar="NAME|module:Class",
        help="session readers (default: harnesspro-chat and mini-swe-agent)",
    )  # fmt: skip
    retro.add_argument("--improver", choices=["catalog", "llm"], default="catalog")
    retro.add_argument(
        "--config", type=Path,
        help="a run config whose evolution.improver_model, budget and sandbox --improver llm "
        "uses (default: the scripted search model)",
    )  # fmt: skip
    COMMANDS.update(register_task_commands(sub))
    register_bench(sub)
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
    return parser


def profile_table(profiles: list[Profile]) -> Table:
    table = Table(title="operating points")
    for column in ("profile", "candidate", "mechanisms", "pass rate", "$/task", "tokens/task"):
        table.add_column(column)
    for p in sorted(profiles, key=lambda p: MODES_ORDER.get(p.mode, 9)):
        table.add_row(
            p.mode,
            p.candidate,
            p.mechanisms,
            f"{p.pass_rate:.1%}",
            dollars(p.cost_per_task),
            tokens(p.tokens_per_task).removesuffix(" tokens"),
        )
    return table


def cmd_doctor(args: argparse.Namespace, console: Console) -> int:
    """One line per check; exit 0 when the quickstart can run, 2 otherwise."""
    checks = run_checks()
    for check in checks:
        console.print(render(check), markup=False, highlight=False)
    if ready(checks):
        console.print("ready: `make quickstart` can run here", markup=False)
        return 0
    print("harnesspro: this machine cannot run the quickstart yet; fix the FAIL lines above.",
          file=sys.stderr)  # fmt: skip
    return 2


def cmd_evolve(args: argparse.Namespace, console: Console) -> int:

    config = load_config(args.config, args.set)
    check_ray(config.ray)
    if config.sandbox.backend == "bubblewrap":
        Bubblewrap()  # fail early, before anything is written, when the sandbox cannot run
    run = RunFolder((args.run_dir or default_run_dir(config)).resolve())
    console.print(f"run folder: {run.root}")
    for note in unenforced_limits():  # said once, at start
        console.print(f"warning: sandbox limit not enforced here: {note}", markup=False)
    if config.sandbox.backend == "local":
        console.print(LOCAL_WARNING, markup=False)
    ctx = RunContext.open(config, run, console)
    if ctx.ledger.meta("status") == "complete":
        console.print("this run is complete; nothing to do (reports below).")
    run_evolution(ctx)
    return cmd_report_paths(run.root, console)


def cmd_report_paths(run_dir: Path, console: Console) -> int:
    profiles = load_profiles(run_dir)
    console.print(profile_table(profiles))
    last = run_dir / "reports" / f"epoch-{profiles[0].epoch}"
    console.print(f"Pareto front: {last / 'pareto.html'}")
    console.print(f"cost report:  {last / 'costs.csv'}")
    console.print(f"dashboard:    {run_dir / 'dashboard.html'}")
    return 0


def cmd_report(args: argparse.Namespace, console: Console) -> int:

    load_profiles(args.run_dir)
    ledger = Ledger(args.run_dir / "ledger.sqlite")
    epochs = ledger.finished_epochs().set_index("epoch")["hypervolume"]
    for epoch, rows in ledger.selections().groupby("epoch"):
        picks = ", ".join(
            f"{r['mode']} {r['candidate_id']} ({r['pass_rate']:.0%}, {dollars(r['cost'])})"
            for r in rows.to_dict("records")
        )
        console.print(f"epoch {epoch}: hypervolume {epochs[epoch]:.4f}; {picks}")
    search = describe_search_costs(ledger)
    ledger.close()
    for line in [*agreement.load_lines(args.run_dir), *budget.load_lines(args.run_dir), search]:
        console.print(line, markup=False)
    return cmd_report_paths(args.run_dir, console)


def cmd_profiles(args: argparse.Namespace, console: Console) -> int:
    profiles = load_profiles(args.run_dir)
    if args.json:
        print(json.dumps({p.mode: p.as_dict() for p in profiles}, indent=2))
    else:
        console.print(profile_table(profiles))
    return 0


def cmd_export(args: argparse.Namespace, console: Console) -> int:

    profile = next((p for p in load_profiles(args.run_dir) if p.mode == args.profile), None)
    if profile is None:
        raise RunNotFound(f"{args.run_dir}: no '{args.profile}' profile in the last epoch.")
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        raise ConfigError(f"{args.out}: exists and is not empty; pass an empty or new --out.")
    data = load_run(args.run_dir)
    seed = data.candidates[data.candidates["id"] == "c000"]["commit"]
    export_profile(data, profile, args.out, None if seed.empty else str(seed.iloc[0]))
    console.print(
        f"wrote {profile.mode} ({profile.candidate}, {profile.commit[:10]}) to {args.out}: "
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


def cmd_eval(args: argparse.Namespace, console: Console) -> int:

    if args.attempts is not None and not 1 <= args.attempts <= MAX_REPEATS:
        raise ConfigError(f"--attempts {args.attempts}: K must be from 1 to {MAX_REPEATS}.")
    ctx = open_run(args.run_dir, console)
    if ctx.config.sandbox.backend == "bubblewrap":
        Bubblewrap()  # fail before any rollout when the sandbox cannot run
    finish_run(ctx, args.attempts or ctx.config.evaluation.attempts)
    return 0


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


def cmd_retro(args: argparse.Namespace, console: Console) -> int:

    if not args.sessions.is_dir():
        raise ConfigError(f"{args.sessions}: not a directory; pass --sessions a folder.")
    if args.out.exists() and any(args.out.iterdir()):
        raise ConfigError(f"{args.out}: exists and is not empty; pass an empty or new --out.")
    try:
        adapters = [load_adapter(a) for a in args.adapter or list(ADAPTERS)]
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"--adapter: {exc}; give a registered name or module:Class.") from None
    sessions = read_sessions(args.sessions, adapters)
    if args.improver == "catalog":
        if args.config:
            raise ConfigError("--config: only --improver llm reads it; drop it or add that.")
        result = retro(sessions, args.harness, args.out)
    else:
        config = load_config(args.config, []) if args.config else RunConfig()
        with llm_roles(config, args.out) as (roles, ledger):
            result = retro(sessions, args.harness, args.out, roles)
            console.print(describe_search_costs(ledger), markup=False)
        for role, why in sorted(result.fallbacks.items()):
            console.print(f"  {role} fell back to the catalog: {why}", markup=False)
    console.print(
        f"{result.sessions} sessions ({result.with_verdict} with a verdict), "
        f"{len(result.diagnoses)} diagnoses",
        markup=False,
    )
    for p in result.proposals:
        outcome = p.candidate or p.note
        console.print(
            f"  {p.plan.directive} ({p.plan.scope}) {p.plan.mechanism}: predicted pass "
            f"{p.plan.predicted_pass:+.3f}, cost {p.plan.predicted_cost:+.1%} -> {outcome}",
            markup=False,
        )
    console.print(f"wrote {args.out / 'retro.json'}", markup=False)
    return 0


COMMANDS = {
    "doctor": cmd_doctor,
    "evolve": cmd_evolve,
    "report": cmd_report,
    "profiles": cmd_profiles,
    "export": cmd_export,
    "eval": cmd_eval,
    "dashboard": cmd_dashboard,
    "harness": cmd_harness,
    "rollout": cmd_rollout,
    "bench": cmd_bench,
    "export-trajectories": cmd_export_trajectories,
    "retro": cmd_retro,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    console = Console(soft_wrap=True)  # long paths and log lines stay copy-pastable
    try:
        return COMMANDS[args.command](args, console)
    except USER_ERRORS as exc:
        print(f"harnesspro: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        if not disk_full(exc):
            raise
        print(
            "harnesspro: no space left on the disk; free some space, then re-run the same "
            "command to resume (finished rollouts are kept).",
            file=sys.stderr,
        )
        return 2


def disk_full(exc: BaseException) -> bool:
    """Whether `exc` (or what caused it) is a full disk or quota: from the OS, from SQLite,
    or from a git subprocess's message."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = str(seen)
        if "database or disk is full" in text or "No space left on device" in text:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


if __name__ == "__main__":
    sys.exit(main())
