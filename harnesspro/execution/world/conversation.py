"""What the conversation so far says a simulated model has done: its past replies (each a
command, a malformed command or an answer), what came back, and the state of each reference
step. The world keeps no memory between calls; it reads its own history off the messages,
as a model does."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harnesspro.execution.fakes.task_script import TaskScript
from harnesspro.execution.world import moves, signals
from harnesspro.execution.world.moves import Move

FENCE = re.compile(r"```(\w*)\n(.*?)(```|\Z)", re.S)
STEP_KINDS = ("step", "typo", "script", "near", "quiet")
WHOLE_LINES = 40  # a read showing at least this many lines saw a long input whole


@dataclass(frozen=True)
class Reply:
    """One past assistant reply and what followed it."""

    command: str | None  # None: an answer (no command)
    malformed: bool  # the harness could not have read the command
    result: str  # the next message's text ("" when nothing followed yet)
    followed: bool
    move: Move = Move("answer")


@dataclass
class Progress:
    """The state of the rollout as the conversation shows it."""

    replies: list[Reply] = field(default_factory=list)
    status: list[str] = field(default_factory=list)  # per step: todo|done|failed|spoiled
    attempts: list[int] = field(default_factory=list)
    pointer: int = 0  # the next reference step to attempt
    looks: int = 0
    checks: int = 0
    idles: int = 0
    answers: int = 0
    seen_whole: set[str] = field(default_factory=set)

    @property
    def last(self) -> Reply | None:
        return self.replies[-1] if self.replies else None

    def broken(self) -> int | None:
        """The first step not done, once every step was attempted."""
        return next((i for i, s in enumerate(self.status) if s != "done"), None)

    def stepped_since_check(self) -> bool:
        """Whether a step was attempted after the latest check."""
        kinds = [r.move.kind for r in self.replies]
        last_check = max((i for i, k in enumerate(kinds) if k == "check"), default=-1)
        return any(k in STEP_KINDS for k in kinds[last_check + 1 :])


def _command(message: Mapping[str, Any], fenced: bool) -> tuple[str | None, bool]:
    """(command, malformed) of one assistant message; (None, False) for an answer."""
    calls = message.get("tool_calls")
    if calls:
        arguments = str(calls[0].get("function", {}).get("arguments", ""))
        for text, bad in ((arguments, False), (arguments + '"}', True)):
            try:
                return str(json.loads(text)["command"]), bad
            except (ValueError, KeyError, TypeError):
                continue
        return arguments, True
    content = message.get("content")
    found = FENCE.search(content) if isinstance(content, str) else None
    if fenced and found:
        runnable = found.group(1) in ("bash", "sh", "")
        return found.group(2).rstrip("\n"), not runnable or not found.group(3)
    return None, False


def _apply(progress: Progress, script: TaskScript, reply: Reply) -> None:
    move = reply.move
    if reply.malformed and signals.unreadable(reply.result):
        return  # nothing ran; the harness asked again
    if move.kind in STEP_KINDS:
        i = move.step
        progress.attempts[i] += 1
        if signals.failed(reply.result):
            progress.status[i] = "failed"
        elif move.kind == "step" and not reply.malformed:
            progress.status[i] = "done"
        else:
            progress.status[i] = "spoiled"  # it ran quietly wrong, or never ran
        progress.pointer = i + 1
    elif move.kind == "skip" and progress.pointer < len(script.steps):
        progress.status[progress.pointer] = "spoiled"
        progress.pointer += 1
    elif move.kind == "check":
        progress.checks += 1
    elif move.kind == "idle":
        progress.idles += 1
    elif move.kind == "answer":
        progress.answers += 1
    else:
        progress.looks += 1
        path = (reply.command or "").removeprefix("cat ")
        if path in script.long_inputs and reply.result.count("\n") >= WHOLE_LINES:
            progress.seen_whole.add(path)


def read_progress(
    messages: Sequence[Mapping[str, Any]], script: TaskScript, fenced: bool
) -> Progress:
    """Fold the conversation's replies into the rollout's state."""
    n = len(script.steps)
    progress = Progress(status=["todo"] * n, attempts=[0] * n)
    for k, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        command, malformed = _command(message, fenced)
        follow = messages[k + 1] if k + 1 < len(messages) else None
        result = str(follow.get("content") or "") if follow else ""
        move = moves.classify(script, command) if command is not None else Move("answer")
        reply = Reply(command, malformed, result, follow is not None, move)
        progress.replies.append(reply)
        if follow is not None:
            _apply(progress, script, reply)
    return progress
