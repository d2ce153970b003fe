"""Upstreams the gateway forwards to: the scripted offline policy or an OpenAI-compatible API."""

from __future__ import annotations

import hashlib
import json
import random
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from harnesspro.core.model_config import LatencyConfig
from harnesspro.execution.gateway.streaming import to_chunks

CACHE_BLOCK = 128  # tokens; providers cache prompt prefixes in blocks of this size
CHARS_PER_TOKEN = 4


class Policy(Protocol):
    """A scripted model: world v2's scripted policy or world v3's (execution/worlds.py)."""

    def respond(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        """One assistant message for this request."""
        ...

    def reasoning_tokens(self, request: Mapping[str, Any]) -> int:
        """Hidden reasoning tokens reported for one call."""
        ...


class Upstream(Protocol):
    """Where the gateway sends calls. Failures raise `retry.UpstreamError`."""

    def complete(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        """Answer one chat-completion request with an OpenAI-shaped response (usage included)."""
        ...

    def stream(self, request: Mapping[str, Any], sampling_seed: str) -> Iterator[dict[str, Any]]:
        """The same answer as `chat.completion.chunk` objects, usage in the last one."""
        ...


def count_tokens(text: str) -> int:
    """A tokenizer-free estimate: four characters per token, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def _prompt_text(request: Mapping[str, Any]) -> str:
    # Tools are rendered before messages, as providers do, so they sit in the cached prefix.
    tools = json.dumps(request.get("tools") or [], sort_keys=True)
    return tools + "".join(json.dumps(m, sort_keys=True) for m in request.get("messages", []))


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b`: a binary search on slice
    comparisons (done in C; a prompt is tens of kilobytes, asked for at every call)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def envelope(
    request: Mapping[str, Any], message: dict[str, Any], cached: int, reasoning: int | None = None
) -> dict[str, Any]:
    """An OpenAI-shaped chat completion around `message`, with estimated usage; `reasoning`
    tokens default to 150 at high reasoning effort, else 0."""
    prompt_tokens = count_tokens(_prompt_text(request))
    if reasoning is None:
        reasoning = 150 if request.get("reasoning_effort") == "high" else 0
    completion = count_tokens(json.dumps(message)) + reasoning
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(request.get("model", "scripted")),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": prompt_tokens + completion,
            "prompt_tokens_details": {"cached_tokens": min(cached, prompt_tokens)},
            "completion_tokens_details": {"reasoning_tokens": reasoning},
        },
    }


class PrefixCache:
    """Provider prefix-cache emulation: the common prefix with the same stream's previous
    request, rounded down to whole 128-token blocks."""

    def __init__(self) -> None:
        self.previous: dict[str, str] = {}

    def cached_tokens(self, request: Mapping[str, Any], stream: str) -> int:
        prompt = _prompt_text(request)
        shared = common_prefix(prompt, self.previous.get(stream, ""))
        self.previous[stream] = prompt
        return count_tokens(prompt[:shared]) // CACHE_BLOCK * CACHE_BLOCK


def simulated_latency(
    latency: LatencyConfig, request: Mapping[str, Any], output_tokens: int, sampling_seed: str
) -> float:
    """Seconds a hosted model would take for this call: a time to first token plus the output
    at a drawn rate. The draws are seeded by the rollout's sampling seed and the request, so the
    same call always waits as long."""
    digest = hashlib.sha256((sampling_seed + _prompt_text(request)).encode()).digest()
    rng = random.Random(digest)
    first_token = rng.uniform(*latency.first_token_s)
    return first_token + output_tokens / rng.uniform(*latency.tokens_per_s)


class ScriptedUpstream:
    """The scripted policy behind a provider-like envelope with prefix-cache emulation and, with
    a latency model, a hosted model's waits (slept, so the rollout is I/O-bound)."""

    def __init__(
        self,
        policy: Policy,
        latency: LatencyConfig | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.policy = policy
        self.latency = latency
        self.sleep = sleep
        self.cache = PrefixCache()

    def complete(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        message = self.policy.respond(request, sampling_seed)
        cached = self.cache.cached_tokens(request, sampling_seed)
        response = envelope(request, message, cached, self.policy.reasoning_tokens(request))
        if self.latency is not None:
            output = response["usage"]["completion_tokens"]
            self.sleep(simulated_latency(self.latency, request, output, sampling_seed))
        return response

    def stream(self, request: Mapping[str, Any], sampling_seed: str) -> Iterator[dict[str, Any]]:
        return to_chunks(self.complete(request, sampling_seed))


class ReplayUpstream:
    """Answers with recorded assistant messages in order (the n-th call gets the n-th), then
    a plain 'done' reply; keeps every request it saw, for tests and debugging."""

    def __init__(self, replies: Sequence[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.cache = PrefixCache()

    def complete(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        index = len(self.requests)
        self.requests.append(json.loads(json.dumps(request)))
        done = {"role": "assistant", "content": "Done."}
        message = self.replies[index] if index < len(self.replies) else done
        return envelope(request, message, self.cache.cached_tokens(request, sampling_seed))

    def stream(self, request: Mapping[str, Any], sampling_seed: str) -> Iterator[dict[str, Any]]:
        return to_chunks(self.complete(request, sampling_seed))

    @classmethod
    def from_log(cls, path: Path) -> ReplayUpstream:
        """Replies recorded in a JSONL file: one assistant message (or full response) per line."""
        replies = []
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                replies.append(record["choices"][0]["message"] if "choices" in record else record)
        return cls(replies)
