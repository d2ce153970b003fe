"""Server-sent events for streamed chat completions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def to_chunks(response: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A full chat completion as `chat.completion.chunk`s: the message, then the usage."""
    base = {k: response.get(k) for k in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"
    choice = response["choices"][0]
    delta = {k: v for k, v in choice["message"].items() if k in ("role", "content", "tool_calls")}
    for i, call in enumerate(delta.get("tool_calls") or []):
        call["index"] = i
    yield {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    finish = {"index": 0, "delta": {}, "finish_reason": choice.get("finish_reason")}
    yield {**base, "choices": [finish]}
    yield {**base, "choices": [], "usage": response.get("usage")}


def sse(chunk: dict[str, Any] | None) -> bytes:
    """One SSE event; None is the closing `[DONE]`."""
    return b"data: [DONE]\n\n" if chunk is None else f"data: {json.dumps(chunk)}\n\n".encode()


def parse_sse(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """Chunks from SSE lines, stopping at `[DONE]`."""
    for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        yield json.loads(data)
