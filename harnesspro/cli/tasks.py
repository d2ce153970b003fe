"""CLI commands for tasks: `tasks validate`, `tasks split` and `coreset`.

`register(subparsers)` adds them to the `harnesspro` parser and returns the handlers by command
name; each handler takes (args, console) and returns an exit code. User errors print one
sentence and exit 2.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from rich.console import Console

from harnesspro.cli.handlers import Handler
from harnesspro.core.ledger import passing_tasks
from harnesspro.core.ledger_schema import LedgerDamaged
from harnesspro.core.records import Task
from harnesspro.core.search_config import PACKAGED_SUITES
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.contract import SandboxUnavailable
from harnesspro.tasks.checktask import validate_task
from harnesspro.tasks.loader import TaskError, load_suite, load_task, scan_suite, suite_dir
from harnesspro.tasks.manifest import ManifestError, build_manifest, splits_dict, write_manifest
from harnesspro.tasks.splits import make_splits

USER_ERRORS = (TaskError, ManifestError, SandboxUnavailable, LedgerDamaged)


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not in [0, 1)")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


def register(subparsers: argparse._SubParsersAction) -> dict[str, Handler]:
    """Add `tasks {validate,split}` and `coreset` to a subparsers object."""
    tasks = subparsers.add_parser("tasks", help="validate task folders, write split manifests")
    verbs = tasks.add_subparsers(dest="tasks_command", required=True)
    validate = verbs.add_parser("validate", help="reference passes, doing nothing fails")
    validate.add_argument("dir", help="a task folder, a folder of tasks, or `builtin`")
    validate.add_argument(
        "--require-reference",
        action="store_true",
        help="a task whose verifier is not shown to pass (no reference solution) is an error",
    )
    validate.add_argument(
        "--proof",
        type=Path,
        action="append",
        default=[],
        metavar="RUN_DIR",
        help="a run folder whose officially passed rollouts prove their tasks' verifiers can pass",
    )
    split = verbs.add_parser("split", help="write a split manifest (train pool / test)")
    split.add_argument("suite", nargs="+", help="`builtin`, a folder of tasks, or several folders")
    split.add_argument("--test-fraction", type=_fraction, required=True)
    split.add_argument("--seed", type=int, required=True)
    split.add_argument("--coreset-size", type=_positive, help="also pick a DPP coreset")
    split.add_argument("--out", type=Path, required=True)
    coreset = subparsers.add_parser("coreset", help="write a DPP coreset manifest")
    coreset.add_argument(
        "--tasks", nargs="+", required=True, help="`builtin`, a folder of tasks, or several"
    )
    coreset.add_argument("--size", type=_positive, required=True)
    coreset.add_argument("--test-fraction", type=_fraction, default=0.25)
    coreset.add_argument("--seed", type=int, default=0, help="seed of the test split")
    coreset.add_argument("--out", type=Path, required=True)
    return {"tasks": _guarded(cmd_tasks), "coreset": _guarded(cmd_coreset)}


def _guarded(handler: Handler) -> Handler:
    def run(args: argparse.Namespace, console: Console) -> int:
        try:
            return handler(args, console)
        except USER_ERRORS as exc:
            print(f"harnesspro: {exc}", file=sys.stderr)
            return 2

    return run


def cmd_tasks(args: argparse.Namespace, console: Console) -> int:
    """Dispatch `tasks validate` / `tasks split`."""
    return {"validate": cmd_validate, "split": cmd_split}[args.tasks_command](args, console)


def cmd_validate(args: argparse.Namespace, console: Console) -> int:
    """Validate one task or every task of a suite; exit 1 when any is broken."""
    root = _suite_root(args.dir, "DIR")
    single = (root / "task.toml").is_file() or (root / "task.yaml").is_file()
    tasks, problems = ([load_task(root)], []) if single else scan_suite(root)
    passed = _recorded_passes(args.proof)
    sandbox = Bubblewrap()
    for problem in problems:
        _say(console, f"{'malformed':16} {problem}")
    statuses = Counter({"malformed": len(problems)})
    proofs: Counter[str] = Counter()
    for task in tasks:
        result = validate_task(task, sandbox)
        status, reason = result.status, result.reason
        if status == "ok":
            proofs["reference"] += 1
        elif status == "unproven" and task.id in passed:
            status, reason = "ok", f"{reason.split(';')[0]}; {passed[task.id]}"
            proofs["recorded rollout"] += 1
        statuses[status] += 1
        _say(console, f"{status:16} {task.id}: {reason}")
    _say(console, ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()) if n))
    shown = ", ".join(f"{n} by {how}" for how, n in sorted(proofs.items())) or "none"
    _say(
        console,
        f"verifiers shown to pass: {sum(proofs.values())} ({shown}); "
        f"unproven: {statuses['unproven']}",
    )
    broken = statuses["invalid"] + statuses["error"] + statuses["malformed"]
    if args.require_reference:
        broken += statuses["unproven"]
    return 1 if broken else 0


def _recorded_passes(runs: list[Path]) -> dict[str, str]:
    """Task id -> which run folder holds an officially passed rollout of it."""
    passed: dict[str, str] = {}
    for run in runs:
        ledger = run / "ledger.sqlite"
        if not ledger.is_file():
            raise TaskError(f"{run}: not a run folder (no ledger.sqlite); fix --proof.")
        for task_id in passing_tasks(ledger):
            passed.setdefault(task_id, f"a recorded rollout in {run} passed")
    return passed


def cmd_split(args: argparse.Namespace, console: Console) -> int:
    """Write a split manifest: hash-ordered test split, the rest as the train pool."""
    tasks = _suite_tasks(args.suite, "SUITE")
    splits = make_splits(tasks, args.test_fraction, args.seed, args.coreset_size or 0)
    settings = {"test_fraction": args.test_fraction, "seed": args.seed}
    if args.coreset_size:
        settings["coreset_size"] = args.coreset_size
    command = (
        f"harnesspro tasks split {' '.join(args.suite)} --test-fraction {args.test_fraction} "
        f"--seed {args.seed}"
        + (f" --coreset-size {args.coreset_size}" if args.coreset_size else "")
        + f" --out {args.out}"
    )
    chosen = splits_dict(splits, bool(args.coreset_size))
    manifest = build_manifest(_one(args.suite), tasks, chosen, settings, command)
    write_manifest(manifest, args.out)
    sizes = ", ".join(f"{name} {len(ids)}" for name, ids in manifest.splits.items())
    _say(console, f"wrote {args.out}: {sizes}")
    return 0


def cmd_coreset(args: argparse.Namespace, console: Console) -> int:
    """Write a coreset manifest: test split held out, DPP coreset of the train pool."""
    tasks = _suite_tasks(args.tasks, "--tasks")
    splits = make_splits(tasks, args.test_fraction, args.seed, args.size)
    settings = {"test_fraction": args.test_fraction, "seed": args.seed, "coreset_size": args.size}
    command = (
        f"harnesspro coreset --tasks {' '.join(args.tasks)} --size {args.size} "
        f"--test-fraction {args.test_fraction} --seed {args.seed} --out {args.out}"
    )
    suite = _one(args.tasks)
    manifest = build_manifest(suite, tasks, splits_dict(splits, True), settings, command)
    write_manifest(manifest, args.out)
    _say(
        console, f"wrote {args.out}: coreset of {len(splits.coreset)}: {', '.join(splits.coreset)}"
    )
    return 0


def _one(suite: list[str]) -> str | list[str]:
    """A single folder as itself, several as a list (as `tasks.suite` takes them)."""
    return suite[0] if len(suite) == 1 else suite


def _suite_tasks(suite: list[str], what: str) -> list[Task]:
    for part in suite:
        _suite_root(part, what)
    tasks = load_suite(_one(suite))
    if not tasks:
        raise TaskError(f"{' '.join(suite)}: no loadable task folders; check the suite path.")
    return tasks


def _suite_root(name: str, what: str) -> Path:
    if name not in PACKAGED_SUITES and not Path(name).is_dir():
        raise TaskError(f"{name}: no such folder; pass `builtin` or a folder of tasks as {what}.")
    return suite_dir(name)


def _say(console: Console, text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)
