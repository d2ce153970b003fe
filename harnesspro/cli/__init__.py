"""The `harnesspro` command: each command lives in its own module of this package, which adds
its parser and hands back its handler; this module dispatches and turns user errors into one
sentence and exit 2."""

from __future__ import annotations

import argparse
import errno
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from rich.console import Console

from harnesspro.bench.command import cmd_bench
from harnesspro.bench.command import register as register_bench
from harnesspro.cli import calibrate, doctor, evolve, harness, model, results, retro, tasks
from harnesspro.cli.handlers import Handler
from harnesspro.core.config_base import ConfigError
from harnesspro.core.ledger_schema import LedgerDamaged
from harnesspro.evaluation.scoring import FrozenTestChanged
from harnesspro.evaluation.selection.select import SeedUnscored
from harnesspro.run.operating_points import RunNotFound
from harnesspro.sandbox.contract import SandboxUnavailable
from harnesspro.tasks.loader import TaskError
from harnesspro.tasks.toolenv import ToolEnvError

USER_ERRORS = (
    ConfigError,
    TaskError,
    RunNotFound,
    SandboxUnavailable,
    ToolEnvError,
    LedgerDamaged,
    FrozenTestChanged,
    SeedUnscored,
)
"""What a user can cause or fix: one sentence on stderr and exit 2, never a traceback."""
DESCRIPTION = "Evolve an LLM agent's harness toward the Pareto front of pass rate vs cost per task."
COMMAND_MODULES = (doctor, evolve, results, tasks, harness, retro, model, calibrate)
TERMINATED_STATUS = 128 + signal.SIGTERM


class Terminated(BaseException):
    """SIGTERM arrived: raised in the main thread so every `with` and `finally` on the way
    out runs (the run's llama.cpp server and Ray are stopped, the ledger is closed)."""


def on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def parser() -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    """The parser of every command, and the handlers by command name."""
    top = argparse.ArgumentParser(prog="harnesspro", description=DESCRIPTION)
    sub = top.add_subparsers(dest="command", required=True)
    handlers: dict[str, Handler] = {}
    for module in COMMAND_MODULES:
        handlers.update(module.register(sub))
    register_bench(sub)
    handlers["bench"] = cmd_bench
    return top, handlers


def main(argv: Sequence[str] | None = None) -> int:
    top, handlers = parser()
    args = top.parse_args(argv)
    console = Console(soft_wrap=True)  # long paths and log lines stay copy-pastable
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, on_sigterm) if in_main else None
    try:
        return handlers[args.command](args, console)
    except Terminated:
        print(
            "harnesspro: terminated (SIGTERM); finished rollouts are kept, re-run the same "
            "command to resume.",
            file=sys.stderr,
        )
        return TERMINATED_STATUS
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
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)


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
