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

import json
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

# Base images whose userland the sandbox's read-only host system (Debian + Python) stands in for.
PLAIN_BASES = re.compile(
    r"^(docker\.io/)?(library/)?(python|ubuntu|debian)(:|@|$)"
    r"|^ghcr\.io/laude-institute/t-bench/(ubuntu|python)[-\w.]*(:|@|$)"
)
# Instructions that only describe the image (metadata, the default command): no effect on a test.
METADATA = {"LABEL", "MAINTAINER", "EXPOSE", "CMD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"}
# apt packages the interpreter itself stands in for, whatever the host's package database says.
HOST_APT = {"python3", "python3-pip", "python3-venv", "python-is-python3", "python3-dev"}
PIP_FLAGS = {
    "--no-cache-dir",
    "--break-system-packages",
    "-q",
    "--quiet",
    "-U",
    "--upgrade",
    "--user",
    "--no-warn-script-location",
    "--disable-pip-version-check",
    "--root-user-action=ignore",
    "--ignore-installed",
}
# Requirements the tool environment already satisfies in its own way.
PIP_SELF = {"pip", "setuptools", "wheel"}
FORBIDDEN_DESTS = ("/proc", "/sys", "/dev")
DEFAULT_SHELL = ("/bin/sh", "-c")  # what RUN's shell form runs in, unless SHELL changes it
# Words that open or continue a compound shell command (a RUN with one is a single build step).
COMPOUND = {"if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "{"}
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
class _State:
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


def parse_dockerfile(text: str) -> Environment | NeedsContainer:
    """Interpret a Dockerfile's text; the first unsupported instruction stops it."""
    state = _State()
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


def _apply(state: _State, keyword: str, rest: str) -> None:
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


def _from(state: _State, rest: str) -> None:
    if state.base:
        raise Unsupported("multi-stage build (a second FROM)")
    words = rest.split()
    image = state.expand(next((w for w in words if not w.startswith("--")), ""))
    if not PLAIN_BASES.search(image):
        raise Unsupported(f"base image {image} is not a plain Debian/Ubuntu/Python image")
    state.base = image


def _pairs(state: _State, rest: str, allow_bare: bool = False) -> dict[str, str]:
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


def _copies(state: _State, keyword: str, rest: str) -> list[Copy]:
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


def _run(state: _State, rest: str) -> None:
    if rest.startswith("["):
        state.build_steps.append(_step(state, shlex.join(json.loads(rest))))
        return
    segments = chain_segments(rest)
    if any(_words(segment)[:1] in ([k] for k in COMPOUND) for segment, _ in segments):
        # `if ...; then ...; fi`, `for ...; do ...; done`: its commands only make sense together.
        state.build_steps.append(_step(state, rest))
        return
    script: list[str] = []
    for segment, separator in segments:
        words = _words(segment)
        if words and _is_data(state, words, after_shell=bool(script)):
            _run_command(state, _without_redirects(words))
        else:
            script += [segment, separator]
    if script:
        state.build_steps.append(_step(state, " ".join(script[:-1])))


def _step(state: _State, script: str) -> BuildStep:
    if state.workdir != "/":
        state.mkdirs.append(state.workdir)  # Docker makes a WORKDIR that does not exist yet
    return BuildStep(script, state.workdir, state.shell, tuple(state.args.items()))


def chain_segments(script: str) -> list[tuple[str, str]]:
    """Split shell text at its top-level `&&` and `;` (outside quotes, parentheses and
    `$(...)`), keeping each command's original text and the separator after it."""
    segments: list[tuple[str, str]] = []
    quote, depth, start, i = "", 0, 0, 0
    while i < len(script):
        char = script[i]
        if char == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0 and (script.startswith("&&", i) or char == ";"):
            segments.append((script[start:i].strip(), "&&" if char == "&" else ";"))
            i += 2 if char == "&" else 1
            start = i
            continue
        i += 1
    if quote:
        raise ValueError("No closing quotation")
    segments.append((script[start:].strip(), ""))
    return [(text, sep) for text, sep in segments if text]


def _words(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def _is_operator(token: str) -> bool:
    return bool(token) and set(token) <= set("|&;<>()")


def _without_redirects(words: list[str]) -> list[str]:
    """The command's words without `> file` / `>> file` (an install's log redirected)."""
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in (">", ">>"):
            skip = True
        else:
            kept.append(word)
    return kept


def _is_data(state: _State, words: list[str], after_shell: bool) -> bool:
    """Whether the command is interpreted as data rather than run as shell text."""
    while len(words) > 1 and re.fullmatch(r"\w+=\S*", words[0]):
        words = words[1:]
    name, args = words[0], words[1:]
    installs = name in ("pip", "pip3", "apt-get", "apt") or (
        name.startswith("python") and args[:2] == ["-m", "pip"]
    )
    if installs:
        # Package installs are always data; a pipe or a subshell around one is not.
        return not any(_is_operator(w) for w in _without_redirects(words))
    if any(_is_operator(w) for w in words):
        return False
    if name == "mkdir":
        # After a `cd` in the same chain a relative folder means something else.
        return not after_shell or all(a.startswith(("/", "-")) for a in args)
    if name == "chmod":
        # A file a shell step made exists only once that step ran.
        return not after_shell and not state.build_steps
    return (name == "ln" and args[:1] in (["-s"], ["-sf"]) and _is_python_link(args[1:])) or (
        words == ["rm", "-rf", "/var/lib/apt/lists/*"] or words in (["true"], [":"])
    )


def _run_command(state: _State, words: list[str]) -> None:
    # `DEBIAN_FRONTEND=noninteractive apt-get ...`: leading assignments only tune the command.
    while len(words) > 1 and re.fullmatch(r"\w+=\S*", words[0]):
        words = words[1:]
    name, args = words[0], words[1:]
    if name == "mkdir":
        _mkdir(state, args)
    elif name == "chmod":
        _chmod(state, args)
    elif name in ("pip", "pip3") or (name.startswith("python") and args[:2] == ["-m", "pip"]):
        _pip(state, args[2:] if name.startswith("python") else args)
    elif name in ("apt-get", "apt"):
        state.os_packages += _apt(args)
    elif name == "ln" and args and args[0] in ("-s", "-sf") and _is_python_link(args[1:]):
        pass  # the tool environment already has `python` and `python3`
    elif words == ["rm", "-rf", "/var/lib/apt/lists/*"] or words in (["true"], [":"]):
        pass
    else:
        raise Unsupported(f"RUN command `{shlex.join(words)}` is not interpreted")


def _mkdir(state: _State, args: list[str]) -> None:
    skip = False
    for arg in args:
        if skip or arg in ("-p", "--parents", "-v"):
            skip = False
        elif arg in ("-m", "--mode"):
            skip = True
        elif arg.startswith("-"):
            raise Unsupported(f"mkdir option {arg} is not interpreted")
        else:
            state.mkdirs.append(state.path(arg))


def _is_python_link(paths: list[str]) -> bool:
    return len(paths) == 2 and all(re.fullmatch(r"/usr(/local)?/bin/python3?", p) for p in paths)


def _chmod(state: _State, args: list[str]) -> None:
    if len(args) < 2 or not re.fullmatch(r"[0-7]{3,4}|[ugoa]*\+x", args[0]):
        raise Unsupported(f"chmod {' '.join(args)} is not interpreted")
    state.chmods += [(args[0], state.path(p)) for p in args[1:]]


def _pip(state: _State, args: list[str]) -> None:
    if not args or args[0] != "install":
        raise Unsupported(f"pip {' '.join(args[:1])} is not interpreted")
    for word in args[1:]:
        if word.startswith("-"):
            if word not in PIP_FLAGS:
                raise Unsupported(f"pip install option {word} is not interpreted")
        elif re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[\w,.-]+\])?\s*([<>=!~].*)?$", word):
            if canonical_name(word) not in PIP_SELF:
                state.requirements.append(word.replace(" ", ""))
        else:
            raise Unsupported(f"pip requirement {word!r} is not a registry package")


def _apt(args: list[str]) -> list[str]:
    """The packages an apt-get step installs ([] for update/clean)."""
    words = [a for a in args if not a.startswith("-")]
    if words[:1] in (["update"], ["clean"], ["autoclean"]):
        return []
    if words[:1] == ["install"]:
        packages = [a.split("=")[0] for a in words[1:]]
        if any(not re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", p) for p in packages):
            raise Unsupported(f"apt-get install of {' '.join(words[1:])} is not interpreted")
        return [p for p in packages if p not in HOST_APT]
    raise Unsupported(f"apt-get {' '.join(words[:1])} is not interpreted")


def canonical_name(requirement: str) -> str:
    """The PEP 503 normalised project name of a requirement string."""
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    return re.sub(r"[-_.]+", "-", match.group(0) if match else requirement).lower()


def effective_requirements(requirements: list[str]) -> tuple[str, ...]:
    """Requirements as one pip call would need them: a bare name is dropped when the same
    project is also pinned (a later bare `pip install X` is a no-op once X is installed)."""
    pinned = {canonical_name(r) for r in requirements if re.search(r"[<>=!~]", r)}
    kept = [r for r in requirements if re.search(r"[<>=!~]", r) or canonical_name(r) not in pinned]
    return tuple(dict.fromkeys(kept))


def declared_workdir(dockerfile: Path) -> str | None:
    """The image's final WORKDIR, or None without a Dockerfile or a WORKDIR line."""
    if not dockerfile.is_file():
        return None
    state = _State()
    for line in logical_lines(dockerfile.read_text(errors="replace")):
        keyword, _, rest = line.partition(" ")
        if keyword.upper() in ("WORKDIR", "ENV", "ARG"):
            try:
                _apply(state, keyword.upper(), rest.strip())
            except (Unsupported, ValueError):
                continue
    return None if state.workdir == "/" else state.workdir
