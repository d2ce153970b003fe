"""The commands a task's test script calls, read from its text before anything runs.

A runner that lacks one of them cannot grade the task: that is the runner's fault, found
before the run, never inferred from the verifier's output (which the agent can influence).
The reading is a small shell word scanner, not a full parser: it finds the first word of each
simple command (after `;`, `|`, `&&`, `(`, `then`, `do`, ...), skips here-document bodies,
variable assignments, shell keywords and builtins, functions the script defines, and words
that are paths or expansions.
"""

from __future__ import annotations

import functools
import re
import shlex


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


KEYWORDS = _words(
    "if then else elif fi do done while until for in case esac function select time ! { } [[ ]]"
)
BUILTINS = _words(
    "echo printf exit return cd export set unset source . [ test true false read local "
    "declare typeset shift trap eval exec wait pushd popd shopt alias umask ulimit let "
    "command builtin type hash break continue : getopts readonly"
)
# Words after which the next word is again in command position.
SEPARATORS = _words(";; ; | || && & ( ) |& then do else elif if while until ! { time")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
FUNCTION = re.compile(r"^\s*(?:function\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*\(\s*\)", re.M)
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
# Run a program given as their next word.
WRAPPERS = frozenset({"command", "exec", "time", "nohup", "timeout", "env", "xargs"})


@functools.lru_cache(maxsize=512)
def called_commands(script: str) -> tuple[str, ...]:
    """Bare command names the script calls, in order of first use (worked out once per
    text: every rollout checks its task's test script)."""
    defined = set(FUNCTION.findall(script))
    found: list[str] = []
    for line in _code_lines(script):
        for word in _command_words(line):
            if word in defined or word in KEYWORDS or word in BUILTINS or word in found:
                continue
            if "/" in word or word.startswith(("$", "`", "-")) or ASSIGNMENT.match(word):
                continue
            found.append(word)
    return tuple(found)


def _code_lines(script: str) -> list[str]:
    """The script's lines without comments and here-document bodies."""
    lines: list[str] = []
    ends: list[str] = []
    for raw in script.splitlines():
        if ends:
            if raw.strip() == ends[0]:
                ends.pop(0)
            continue
        ends += [match.group(2) for match in HEREDOC.finditer(raw)]
        lines.append(HEREDOC.sub(" ", raw))
    return lines


def _command_words(line: str) -> list[str]:
    """First words of the simple commands on one line."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")
    lexer.commenters = "#"
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: the line continues; its first word still counts
        tokens = line.split()[:1]
    words: list[str] = []
    expect = True
    after_wrapper = False
    for token in tokens:
        if token in SEPARATORS or token in ("then", "do", "else"):
            expect = True
            continue
        if not expect:
            continue
        if ASSIGNMENT.match(token) or (after_wrapper and _option_or_number(token)):
            continue
        words.append(token)
        after_wrapper = token in WRAPPERS
        expect = after_wrapper
    return words


def _option_or_number(token: str) -> bool:
    """A wrapper's own argument (`timeout -k 5 10s pytest`), not the program it runs."""
    return token.startswith("-") or re.fullmatch(r"[0-9.]+[smhd]?", token) is not None
