"""`harnesspro doctor`: can this machine run the quickstart, and what is missing.

Each check is one line: what it looked at, whether it holds, and where it does not the command
that fixes it. Required checks decide the exit code; optional ones (Chromium) only inform.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console

from harnesspro.cli.handlers import Handler
from harnesspro.core.config_base import ConfigError
from harnesspro.execution.gateway.prices import lookup_price
from harnesspro.execution.llama.gguf import QWEN_CODER_05B, installed_path
from harnesspro.execution.llama.server import INSTALL_HINT, server_installed
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.cgroup import unenforced_limits
from harnesspro.sandbox.contract import SandboxUnavailable
from harnesspro.tasks.toolenv import ToolEnvError, cache_root, ensure_toolenv
from harnesspro.tasks.verify import PYTEST

PRICED_MODEL = "gpt-4o-mini"
"""A model the shipped price table must know (any well-known one would do)."""


@dataclass(frozen=True)
class Check:
    """One finding of the doctor."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True


def bubblewrap() -> Check:
    """bwrap is installed and can make its namespaces here."""
    name = "bubblewrap"
    fix = "sh scripts/install_bubblewrap.sh (or `apt-get install -y bubblewrap`)"
    try:
        sandbox = Bubblewrap()
    except SandboxUnavailable:
        return Check(name, False, "bwrap is not installed", fix)
    result = sandbox.run(["true"], [], {}, "/", 30)
    if result.exit_code != 0:
        why = (result.stderr.strip().splitlines() or [result.reason or "no output"])[-1]
        fix = "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)"
        return Check(name, False, f"bwrap cannot start a sandbox: {why}", fix)
    return Check(name, True, f"{shutil.which('bwrap')} starts sandboxes (user namespaces work)")


def git_program() -> Check:
    """git, for the candidates' repository and worktrees."""
    path = shutil.which("git")
    if path is None:
        return Check("git", False, "not found", "apt-get install -y git")
    return Check("git", True, path)


def cgroups() -> Check:
    """Whether the sandbox's process and memory caps are enforced (informational)."""
    notes = unenforced_limits()
    if notes:
        fix = "run as root, or with a delegated cgroup v2 subtree"
        return Check("cgroup limits", False, "; ".join(notes), fix, required=False)
    return Check("cgroup limits", True, "process and memory caps are enforced", required=False)


def ray_installed() -> Check:
    """Ray (the rollout cluster) imports."""
    try:
        version = importlib.metadata.version("ray")
    except importlib.metadata.PackageNotFoundError:
        return Check("ray", False, "ray is not installed", "make setup (pip install -e .)")
    return Check("ray", True, f"ray {version}")


def verifier_tools() -> Check:
    """The tool-environment cache is writable and holds the verifiers' pinned pytest."""
    name = "tool environments"
    root = cache_root()
    try:
        env = ensure_toolenv((PYTEST,))
    except (ToolEnvError, OSError) as exc:
        fix = f"check that {root} is writable and PyPI is reachable, then rerun"
        return Check(name, False, f"could not build the verifiers' {PYTEST}: {exc}", fix)
    if not env.provides("pytest"):
        return Check(name, False, f"{env.root} has no pytest", f"rm -r {env.root} and rerun")
    return Check(name, True, f"{root}: verifiers' {PYTEST} at {env.root}")


def chromium() -> Check:
    """Headless Chromium, for the dashboard's screenshots (optional)."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        fix = "sh scripts/install_chromium.sh (or `apt-get install -y chromium`)"
        return Check("chromium", False, "not found", fix, required=False)
    return Check("chromium", True, path, required=False)


def price_table() -> Check:
    """The shipped price table prices a well-known model."""
    try:
        price = lookup_price(PRICED_MODEL, {})
    except (ConfigError, ImportError) as exc:
        return Check("price table", False, str(exc), "pip install -e . (genai-prices)")
    return Check("price table", True, f"{PRICED_MODEL}: ${price.input:g}/M input tokens")


def local_model() -> Check:
    """The real local model and its server (optional: only `model.upstream: llama-cpp`)."""
    name = "local model"
    if installed_path(QWEN_CODER_05B) is None:
        fix = f"harnesspro model install {QWEN_CODER_05B.name}"
        return Check(name, False, f"{QWEN_CODER_05B.name} is not installed", fix, required=False)
    if not server_installed():
        return Check(name, False, "llama-cpp-python's server is missing", INSTALL_HINT, False)
    where = installed_path(QWEN_CODER_05B)
    return Check(name, True, f"{QWEN_CODER_05B.name} at {where}; llama.cpp server", required=False)


CHECKS: tuple[Callable[[], Check], ...] = (
    bubblewrap,
    git_program,
    cgroups,
    ray_installed,
    verifier_tools,
    chromium,
    price_table,
    local_model,
)


def run_checks() -> list[Check]:
    """Every check, in order."""
    return [check() for check in CHECKS]


def ready(checks: list[Check]) -> bool:
    """The quickstart can run: every required check holds."""
    return all(c.ok for c in checks if c.required)


def render(check: Check) -> str:
    """One line for the terminal."""
    mark = "ok  " if check.ok else ("FAIL" if check.required else "warn")
    line = f"{mark} {check.name}: {check.detail}"
    return f"{line} -> {check.fix}" if check.fix and not check.ok else line


def register(sub: argparse._SubParsersAction) -> dict[str, Handler]:
    """Add `doctor`."""
    sub.add_parser("doctor", help="check that this machine can run the quickstart (run it first)")
    return {"doctor": cmd_doctor}


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
