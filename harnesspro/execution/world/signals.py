"""What a simulated model notices in the text it is shown after acting: an error (whoever
wrote it: the shell, the sandbox or the harness), a complaint that its reply could not be
read, a remark that it is repeating itself, a remark that it is done; and the context's
length. Plain-English patterns, none tied to one harness's wording."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

ERROR = re.compile(
    r"exit (?:code|status) [1-9]|non-?zero exit|returned non-?zero|no such file|"
    r"command not found|traceback|\berror\b|syntax error|permission denied|fatal:|"
    r"cannot (?:open|access|stat)|unexpected (?:eof|token)|not a git repository",
    re.I,
)
UNREADABLE = re.compile(
    r"\bpars(?:e|ed|ing)\b|\binvalid\b|\bjson\b|\bmalformed\b|\bunreadable\b|"
    r"\b(?:format|formatted)\b|could not (?:be )?(?:read|understood)|\bresend\b",
    re.I,
)
REPEATING = re.compile(
    r"\balready (?:ran|run|tried|executed|did|done)\b|\bsame (?:command|call|thing)\b|"
    r"\b(?:ran|run|tried|executed) (?:this|that|it) (?:before|already)\b|\brepeat\w*\b|"
    r"\bidentical\b|\b(?:\d+|two|three|several|many) times\b|\bagain and again\b",
    re.I,
)
DONE = re.compile(
    r"\b(?:you are|you're|it is|it's|task is|work is|looks|that is|that's) "
    r"(?:done|finished|complete)\b|\banswer now\b|\bfinal answer\b|\bstop (?:now|here)\b|"
    r"\bno (?:more|further) (?:commands|tool calls|calls)\b|\bsubmit\b|\bwrap (?:it )?up\b",
    re.I,
)
HEAD = 400  # what a model reads closely of a long result: its start and its end


def _edges(text: str) -> str:
    return text if len(text) <= 2 * HEAD else text[:HEAD] + "\n" + text[-HEAD:]


def failed(text: str) -> bool:
    """The result shows an error."""
    return bool(ERROR.search(_edges(text)))


def unreadable(text: str) -> bool:
    """The message says the last reply could not be read."""
    return bool(UNREADABLE.search(text[:HEAD]))


def repeating(text: str) -> bool:
    """The message says or shows that a command was already run."""
    return bool(REPEATING.search(_edges(text)))


def done_told(text: str) -> bool:
    """The message says the work is done, or to answer now."""
    return bool(DONE.search(_edges(text)))


def context_tokens(messages: Sequence[Mapping[str, Any]], tools: Any = None) -> int:
    """The request's length in tokens (four characters a token): every message's text and
    tool calls, and the tools list."""
    chars = len(json.dumps(tools)) if tools else 0
    for message in messages:
        content = message.get("content")
        chars += len(content) if isinstance(content, str) else 0
        calls = message.get("tool_calls")
        chars += len(json.dumps(calls)) if calls else 0
    return math.ceil(chars / 4)
