"""`harnesspro retro`: plans and candidates from recorded sessions."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from harnesspro.cli.handlers import Handler
from harnesspro.core.config import RunConfig, load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.improvers.retro.run import llm_roles, retro
from harnesspro.improvers.retro.sessions import ADAPTERS, load_adapter, read_sessions
from harnesspro.reports.search_costs import describe_search_costs


def register(sub: argparse._SubParsersAction) -> dict[str, Handler]:
    """Add `retro`."""
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
    return {"retro": cmd_retro}


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
