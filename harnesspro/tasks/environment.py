"""What a task's Dockerfile describes, as typed data (`Environment`, or `NeedsContainer`
with the instruction that needs one), and the interpreter's state while reading it."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

FORBIDDEN_DESTS = ("/proc", "/sys", "/dev")


DEFAULT_SHELL = ("/bin/sh", "-c")  # what RUN's shell form runs in, unless SHELL changes it


# What `$PATH` and `$HOME` mean in an ENV line before the Dockerfile sets them (Docker's defaults).
DEFAULTS = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}


@dataclass(frozen=True)
class Copy:
    """Files from the build context (`source`, relative) placed at a container path."""

    source: str
    dest: str


@dataclass(frozen=True)
class BuildStep:
    """A RUN chain's shell commands beyond package installs, run at build time."""

    script: str
    workdir: str
    """The WORKDIR in effect at the RUN instruction."""
    shell: tuple[str, ...] = DEFAULT_SHELL
    args: tuple[tuple[str, str], ...] = ()
    """ARG values in effect (the image's ENV applies too; ARGs do not outlive the build)."""


@dataclass(frozen=True)
class Environment:
    """What the image adds on top of a plain system, as data."""

    base_image: str
    workdir: str
    env: tuple[tuple[str, str], ...] = ()
    copies: tuple[Copy, ...] = ()
    mkdirs: tuple[str, ...] = ()
    chmods: tuple[tuple[str, str], ...] = ()
    requirements: tuple[str, ...] = ()
    os_packages: tuple[str, ...] = ()
    """Packages of the Dockerfile's `apt-get install` steps (beyond the interpreter's own)."""
    build_steps: tuple[BuildStep, ...] = ()
    """Shell RUN steps, in Dockerfile order, run after the files above are staged."""


@dataclass(frozen=True)
class NeedsContainer:
    """The Dockerfile does something only a container backend can reproduce."""

    reason: str
    instruction: str = ""


class Unsupported(Exception):
    """Raised inside the interpreter; becomes a NeedsContainer for the whole instruction."""


@dataclass
class State:
    base: str = ""
    workdir: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    args: dict[str, str] = field(default_factory=dict)
    copies: list[Copy] = field(default_factory=list)
    mkdirs: list[str] = field(default_factory=list)
    chmods: list[tuple[str, str]] = field(default_factory=list)
    requirements: list[str] = field(default_factory=list)
    os_packages: list[str] = field(default_factory=list)
    build_steps: list[BuildStep] = field(default_factory=list)
    shell: tuple[str, ...] = DEFAULT_SHELL

    def path(self, raw: str) -> str:
        """A container path, relative ones resolved against the current WORKDIR."""
        resolved = posixpath.normpath(posixpath.join(self.workdir, self.expand(raw)))
        if resolved.startswith("//"):
            resolved = resolved[1:]
        if any(resolved == d or resolved.startswith(d + "/") for d in FORBIDDEN_DESTS):
            raise Unsupported(f"writes into {resolved}, a kernel file system")
        return resolved

    def expand(self, text: str) -> str:
        """Docker's `$VAR` / `${VAR}` substitution from ARG and ENV values."""
        values = {**DEFAULTS, **self.args, **self.env}
        return re.sub(
            r"\$\{(\w+)\}|\$(\w+)", lambda m: values.get(m.group(1) or m.group(2), ""), text
        )
