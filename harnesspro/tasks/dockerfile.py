"""Interpret the Docker-free subset of a task's Dockerfile into a typed `Environment`.

Allowed: FROM a plain Debian/Ubuntu/Python image, WORKDIR, ENV, ARG, COPY/ADD of local files,
and RUN chains (`a && b`). In a chain, mkdir, chmod, pip installs, `apt-get install` (the packages
become data: `ospackages` decides whether the host has them or a cached layer can provide them)
and no-ops the host already covers (`ln -s` of python, apt-get update/clean) are data; every
other command stays shell text, a `BuildStep` that `buildsteps` runs once per task in the sandbox
without network. An install whose output is redirected (an unquoted `pip install x>=1` is `pip
install x` writing to a file `=1`, as in Docker's shell) installs as data; the log file it would
write is not created. Anything else is a `NeedsContainer` that quotes the offending instruction.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
from pathlib import Path

from harnesspro.tasks.environment import (
    BuildStep,
    Copy,
    Environment,
    NeedsContainer,
    State,
    Unsupported,
)
from harnesspro.tasks.run_commands import (
    COMPOUND,
    chain_segments,
    effective_requirements,
    is_data,
    run_command,
    without_redirects,
    words_of,
)

# Base images whose userland the sandbox's read-only host system (Debian + Python) stands in for.
PLAIN_BASES = re.compile(
    r"^(docker\.io/)?(library/)?(python|ubuntu|debian)(:|@|$)"
    r"|^ghcr\.io/laude-institute/t-bench/(ubuntu|python)[-\w.]*(:|@|$)"
)
# Instructions that only describe the image (metadata, the default command): no effect on a test.
METADATA = {"LABEL", "MAINTAINER", "EXPOSE", "CMD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"}


def logical_lines(text: str) -> list[str]:
    """Instructions with backslash continuations joined and comment lines dropped."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        # Docker drops comment lines even in the middle of a continued instruction.
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1].rstrip() + " "
            continue
        lines.append(pending + stripped)
        pending = ""
    if pending.strip():
        lines.append(pending.strip())
    return lines


@functools.lru_cache(maxsize=512)
def parse_dockerfile(text: str) -> Environment | NeedsContainer:
    """Interpret a Dockerfile's text; the first unsupported instruction stops it (once per
    text: every rollout reads its task's; the result is frozen)."""
    state = State()
    for line in logical_lines(text):
        keyword, _, rest = line.partition(" ")
        try:
            _apply(state, keyword.upper(), rest.strip())
        except Unsupported as exc:
            return NeedsContainer(str(exc), line)
        except ValueError as exc:  # unbalanced quotes, bad JSON: Docker would not build it
            return NeedsContainer(f"cannot read the instruction ({exc})", line)
    if not state.base:
        return NeedsContainer("no FROM instruction")
    return Environment(
        base_image=state.base,
        workdir=state.workdir,
        env=tuple(state.env.items()),
        copies=tuple(state.copies),
        mkdirs=tuple(dict.fromkeys(state.mkdirs)),
        chmods=tuple(state.chmods),
        requirements=effective_requirements(state.requirements),
        os_packages=tuple(dict.fromkeys(state.os_packages)),
        build_steps=tuple(state.build_steps),
    )


def load_environment(dockerfile: Path) -> Environment | NeedsContainer:
    """Interpret a task's Dockerfile file."""
    return parse_dockerfile(dockerfile.read_text(errors="replace"))


def _apply(state: State, keyword: str, rest: str) -> None:
    if keyword == "FROM":
        _from(state, rest)
    elif keyword == "WORKDIR":
        state.workdir = state.path(rest)
    elif keyword == "ENV":
        state.env.update(_pairs(state, rest))
    elif keyword == "ARG":
        for key, value in _pairs(state, rest, allow_bare=True).items():
            state.args.setdefault(key, value)
    elif keyword in ("COPY", "ADD"):
        state.copies.extend(_copies(state, keyword, rest))
    elif keyword == "RUN":
        _run(state, rest)
    elif keyword == "USER" and rest in ("root", "0"):
        pass
    elif keyword == "SHELL":
        state.shell = tuple(json.loads(rest))
    elif keyword not in METADATA:
        raise Unsupported(f"{keyword} is not supported without a container")


def _from(state: State, rest: str) -> None:
    if state.base:
        raise Unsupported("multi-stage build (a second FROM)")
    words = rest.split()
    image = state.expand(next((w for w in words if not w.startswith("--")), ""))
    if not PLAIN_BASES.search(image):
        raise Unsupported(f"base image {image} is not a plain Debian/Ubuntu/Python image")
    state.base = image


def _pairs(state: State, rest: str, allow_bare: bool = False) -> dict[str, str]:
    """`K=V K2="V 2"` or the legacy `K V` form of ENV/ARG."""
    words = shlex.split(rest)
    if words and "=" not in words[0]:
        if allow_bare and len(words) == 1:
            return {words[0]: ""}
        return {words[0]: state.expand(rest.split(None, 1)[1] if len(words) > 1 else "")}
    pairs = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep and not allow_bare:
            raise Unsupported(f"cannot read ENV word {word!r}")
        pairs[key] = state.expand(value)
    return pairs


def _copies(state: State, keyword: str, rest: str) -> list[Copy]:
    words = json.loads(rest) if rest.startswith("[") else shlex.split(rest)
    flags = [w for w in words if w.startswith("--")]
    if any(f.startswith(("--from", "--link", "--parents")) for f in flags):
        raise Unsupported(f"{keyword} {flags[0]} needs the image builder")
    paths = [state.expand(w) for w in words if not w.startswith("--")]
    if len(paths) < 2:
        raise Unsupported(f"{keyword} needs a source and a destination")
    *sources, raw_dest = paths
    dest = state.path(raw_dest)
    for source in sources:
        if keyword == "ADD" and (
            "://" in source or re.search(r"\.(tar|tgz|gz|bz2|xz|zst)$", source)
        ):
            raise Unsupported("ADD of a URL or an archive needs the image builder")
        if ".." in Path(source).parts or source.startswith("/"):
            raise Unsupported(f"source {source} lies outside the build context")
    if len(sources) > 1 and not raw_dest.endswith("/"):
        raise Unsupported("several sources need a destination ending in /")
    return [
        Copy(source.rstrip("/") or ".", dest + ("/" if raw_dest.endswith("/") else ""))
        for source in sources
    ]


def _run(state: State, rest: str) -> None:
    if rest.startswith("["):
        state.build_steps.append(_step(state, shlex.join(json.loads(rest))))
        return
    segments = chain_segments(rest)
    if any(words_of(segment)[:1] in ([k] for k in COMPOUND) for segment, _ in segments):
        # `if ...; then ...; fi`, `for ...; do ...; done`: its commands only make sense together.
        state.build_steps.append(_step(state, rest))
        return
    script: list[str] = []
    for segment, separator in segments:
        words = words_of(segment)
        if words and is_data(state, words, after_shell=bool(script)):
            run_command(state, without_redirects(words))
        else:
            script += [segment, separator]
    if script:
        state.build_steps.append(_step(state, " ".join(script[:-1])))


def _step(state: State, script: str) -> BuildStep:
    if state.workdir != "/":
        state.mkdirs.append(state.workdir)  # Docker makes a WORKDIR that does not exist yet
    return BuildStep(script, state.workdir, state.shell, tuple(state.args.items()))


def declared_workdir(dockerfile: Path) -> str | None:
    """The image's final WORKDIR, or None without a Dockerfile or a WORKDIR line."""
    if not dockerfile.is_file():
        return None
    state = State()
    for line in logical_lines(dockerfile.read_text(errors="replace")):
        keyword, _, rest = line.partition(" ")
        if keyword.upper() in ("WORKDIR", "ENV", "ARG"):
            try:
                _apply(state, keyword.upper(), rest.strip())
            except (Unsupported, ValueError):
                continue
    return None if state.workdir == "/" else state.workdir
