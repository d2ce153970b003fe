"""The gateway's chat log: every metered call's messages and reply, as OpenAI chat JSONL.

`gateway.jsonl` holds usage and request digests only; `chat.jsonl` (one per rollout, beside
it) holds the conversation itself, so trajectories can be exported for policy training and
read back by `harnesspro retro`. A request repeats the whole history, so a line stores only
what is new: `prefix` = how many leading messages equal the previous request's, `messages` =
the rest, then the assistant `response`. One line per successful call:

    {"call": 0, "prefix": 0, "messages": [...], "tools": [...], "params": {...},
     "response": {"role": "assistant", "content": ..., "tool_calls": [...]}}

`tools` and `params` appear only when they differ from the previous call's. The log is
capped (`max_bytes`): the call that would pass the cap and every later one are left out,
after one line `{"call": n, "omitted": "..."}` saying so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

TRANSPORT = ("messages", "tools", "model", "stream", "stream_options")


@dataclass
class ChatLog:
    """Per-token conversation state of one gateway; `lines` is the JSONL to write."""

    lines: list[str] = field(default_factory=list)
    max_bytes: int | None = None
    """Bytes of JSONL kept (None: no cap); later calls are left out, said in one line."""
    size: int = 0
    full: bool = False
    _seen: dict[str, tuple[list[Any], Any, Any]] = field(default_factory=dict)

    def add(self, token: str, body: Mapping[str, Any], response: Mapping[str, Any]) -> None:
        """Log one answered request of `token`'s rollout."""
        if self.full:
            return  # a later line would diff against calls that were left out
        messages = list(body.get("messages") or [])
        tools = body.get("tools")
        params = {k: v for k, v in body.items() if k not in TRANSPORT}
        before, old_tools, old_params = self._seen.get(token, ([], None, None))
        prefix = 0
        while prefix < min(len(before), len(messages)) and before[prefix] == messages[prefix]:
            prefix += 1
        line: dict[str, Any] = {"call": len(self.lines), "prefix": prefix}
        line["messages"] = messages[prefix:]
        if tools != old_tools:
            line["tools"] = tools
        if params != old_params:
            line["params"] = params
        line["response"] = dict(response)
        text = json.dumps(line)
        if self.max_bytes is not None and self.size + len(text) + 1 > self.max_bytes:
            self.full = True
            note = (
                f"chat.jsonl reached its cap of {self.max_bytes:,} bytes; later calls are left out"
            )
            text = json.dumps({"call": len(self.lines), "omitted": note})
        self.lines.append(text)
        self.size += len(text) + 1
        self._seen[token] = ([*messages, dict(response)], tools, params)


def first_message(response: Mapping[str, Any]) -> dict[str, Any]:
    """The assistant message of a non-streaming completion ({} when it has none)."""
    choices = response.get("choices") or [{}]
    message = choices[0].get("message") if isinstance(choices[0], Mapping) else None
    return dict(message) if isinstance(message, Mapping) else {}


def assemble(chunks: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The assistant message a stream of completion chunks spells out."""
    content: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            content.append(delta.get("content") or "")
            for part in delta.get("tool_calls") or []:
                call = calls.setdefault(
                    int(part.get("index", 0)),
                    {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                )
                call["id"] = part.get("id") or call["id"]
                function = part.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message


@dataclass(frozen=True)
class Conversation:
    """One rollout's conversation rebuilt from its chat log."""

    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...]
    params: Mapping[str, Any]
    calls: int


def conversation(text: str) -> Conversation:
    """Rebuild the full conversation (the last request's history plus the final reply)."""
    history: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    params: dict[str, Any] = {}
    calls = 0
    for raw in text.splitlines():
        if not raw.strip():
            continue
        line = json.loads(raw)
        if "omitted" in line:
            continue
        history = [*history[: int(line["prefix"])], *line["messages"], line["response"]]
        if "tools" in line:
            tools = line["tools"] or []
        params = line.get("params", params)
        calls += 1
    return Conversation(tuple(history), tuple(tools), params, calls)
