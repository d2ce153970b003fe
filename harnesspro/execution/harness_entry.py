"""How a harness folder is started: its `harness.toml` [harness] section, the tool
environment of its requirements, and its command."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from harnesspro.execution.outcome import HarnessError, InfraError
from harnesspro.tasks.toolenv import ToolEnv, ToolEnvError, ensure_toolenv

# A registry requirement such as `name==1.2` or `name[extra]>=1,<2`: no options, URLs or paths.
REQUIREMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(\[[\w,.-]+\])? *([<>=!~][\w.*+!<>=~, ]*)?")


def requirements_problem(requirements: object) -> str:
    """'' when `requirements` is a list of registry requirement strings, else the reason."""
    if not isinstance(requirements, list):
        return "harness.toml: [harness] requirements must be a list of strings"
    for req in requirements:
        if not isinstance(req, str) or not REQUIREMENT.fullmatch(req):
            return f"harness.toml: [harness] requirements: {req!r} is not a registry requirement"
    return ""


def _harness_section(harness_dir: Path) -> dict[str, Any]:
    try:
        section = tomllib.loads((harness_dir / "harness.toml").read_text())["harness"]
        section["command"]
    except FileNotFoundError:
        raise HarnessError("harness.toml is missing") from None
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        raise HarnessError("harness.toml has no [harness] command") from None
    return dict(section)


def harness_toolenv(harness_dir: Path) -> ToolEnv | None:
    """The manifest's `requirements` in a cached tool environment, built here (in the Ray
    worker or driver, before the sandbox starts) when missing; None without requirements."""
    requirements = _harness_section(harness_dir).get("requirements", [])
    problem = requirements_problem(requirements)
    if problem:
        raise HarnessError(problem)
    if not requirements:
        return None
    try:
        return ensure_toolenv(requirements)
    except (ToolEnvError, OSError, subprocess.SubprocessError) as exc:
        # A failed install (no network, a broken index) is ours, not the harness's.
        raise InfraError(f"installing the harness's requirements failed: {exc}") from None


def harness_command(harness_dir: Path, toolenv: ToolEnv | None = None) -> list[str]:
    """The manifest's command with `{python}` resolved to the tool environment's interpreter
    when the harness has requirements, else to this interpreter."""
    command = _harness_section(harness_dir)["command"]
    if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
        raise HarnessError("harness.toml: [harness] command must be a non-empty list of strings")
    python = str(toolenv.bin / "python") if toolenv else sys.executable
    return [part.replace("{python}", python) for part in command]
