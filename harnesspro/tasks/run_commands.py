"""The commands of a RUN chain: which are data (mkdir, chmod, pip and apt installs, no-ops the
host covers) and which stay shell text for a build step; requirement names as pip compares them."""

from __future__ import annotations

import re
import shlex

from harnesspro.tasks.environment import (
    State,
    Unsupported,
)

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


# Words that open or continue a compound shell command (a RUN with one is a single build step).
COMPOUND = {"if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "{"}


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


def words_of(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def _is_operator(token: str) -> bool:
    return bool(token) and set(token) <= set("|&;<>()")


def without_redirects(words: list[str]) -> list[str]:
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


def is_data(state: State, words: list[str], after_shell: bool) -> bool:
    """Whether the command is interpreted as data rather than run as shell text."""
    while len(words) > 1 and re.fullmatch(r"\w+=\S*", words[0]):
        words = words[1:]
    name, args = words[0], words[1:]
    installs = name in ("pip", "pip3", "apt-get", "apt") or (
        name.startswith("python") and args[:2] == ["-m", "pip"]
    )
    if installs:
        # Package installs are always data; a pipe or a subshell around one is not.
        return not any(_is_operator(w) for w in without_redirects(words))
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


def run_command(state: State, words: list[str]) -> None:
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


def _mkdir(state: State, args: list[str]) -> None:
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


def _chmod(state: State, args: list[str]) -> None:
    if len(args) < 2 or not re.fullmatch(r"[0-7]{3,4}|[ugoa]*\+x", args[0]):
        raise Unsupported(f"chmod {' '.join(args)} is not interpreted")
    state.chmods += [(args[0], state.path(p)) for p in args[1:]]


def _pip(state: State, args: list[str]) -> None:
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
