"""The trajectory judgement: the `no-synth` ablation's whole scorer (no frozen test), and by
default (`evolution.judge_trajectory`) a second condition on every frozen test's pass.

It reads the trusted side only: the gateway's chat log of the rollout (what the model was
really sent and answered, `chat.jsonl`) and the rollout's status (set by the driver), never
the `trajectory.jsonl` the harness writes, so a harness that drops its error events or
appends a `submit` gains nothing. As a judge reading the conversation would, it passes a
rollout that ended on its own (status `ok`, not at a budget or a timeout) after at least one
call, whose final reply asks for no further tool call, and whose last tool output shown to
the model shows no failure. It cannot see whether the files hold the right content, which is
what the frozen tests check.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harnesspro.improvers.testsynth.offline import FAILURE_MARKERS

ASSISTANT = "assistant"


@dataclass(frozen=True)
class Conversation:
    """The last call of a rollout as the gateway logged it: its whole message list and the
    reply."""

    messages: list[Mapping[str, Any]]
    reply: Mapping[str, Any] | None


def conversation(chat_log: str) -> Conversation | None:
    """The chat log's last call, its history rebuilt from the log's prefixes (None: no call
    was logged, or a line is garbled)."""
    history: list[Mapping[str, Any]] = []
    messages: list[Mapping[str, Any]] = []
    reply: Mapping[str, Any] | None = None
    for line in chat_log.splitlines():
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            return None
        if "omitted" in entry:
            break  # the log's cap: judge on the calls it kept
        messages = [*history[: int(entry.get("prefix", 0))], *entry.get("messages", [])]
        reply = entry.get("response")
        history = [*messages, reply or {}]
    return Conversation(messages, reply) if reply is not None else None


def message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def last_output(talk: Conversation) -> str | None:
    """The last message the model was shown after its first reply (a tool result, or the
    harness's user message carrying one); None when it never replied before the last call."""
    replied = [i for i, m in enumerate(talk.messages) if m.get("role") == ASSISTANT]
    if not replied:
        return None
    after = [m for m in talk.messages[replied[0] + 1 :] if m.get("role") != ASSISTANT]
    return message_text(after[-1]) if after else None


def judge(chat_log: str, status: str) -> bool:
    """Pass when the rollout ended on its own, its final reply calls no tool, and the last
    tool output the model saw shows no failure."""
    if status != "ok":
        return False
    talk = conversation(chat_log)
    if talk is None or talk.reply is None or talk.reply.get("tool_calls"):
        return False
    output = last_output(talk)
    return output is None or not any(m in output for m in FAILURE_MARKERS)
