"""Context budgets: an improver prompt built from parts ranked by value and trimmed to fit the
model's window.

A role's prompt is a system prompt plus one JSON document of named parts (`Prompt.data`);
`Prompt.ranked` lists the parts least valuable first. `Prompt.fit(limit)` estimates the
request's tokens (`tolerant.message_tokens`: characters / 2.5 plus framing per message) and,
while it is over `limit`, shrinks the least valuable part still present by about half - a
list keeps its first half (its last half for the parts in `tail`, e.g. the newest lessons),
a text keeps its head and tail with the middle cut, an object shrinks its largest field - and
drops the part once it cannot shrink further. Parts in `required` are shrunk but never
dropped. What was cut is returned as one line per part for the search log; a prompt that
still cannot fit raises `PromptTooLarge` (the request is never sent).

`prompt_limit` is the budget: `context_tokens` less the reply's reserve (`max_tokens` of the
request, else a quarter of the window, at most `OUTPUT_RESERVE`) and a `MARGIN` share of the
window for the estimate's error.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from harnesspro.improvers.tolerant import message_tokens

OUTPUT_RESERVE = 2048  # tokens kept for the reply when the request sets no max_tokens
MARGIN = 0.05  # share of the window kept free for the estimate's error
MIN_TEXT = 80  # characters below which a text is not cut further
LENGTH_ERROR = re.compile(
    r"context|too long|too many tokens|maximum.*length|exceed|n_ctx|prompt is too", re.I
)
TRIM_AGAIN = 0.7  # share of the limit the one re-trim keeps when the error names no sizes


class PromptTooLarge(Exception):
    """The prompt's required parts alone exceed the budget; the message says by how much."""


def prompt_limit(context_tokens: int | None, request: dict[str, Any]) -> int | None:
    """Prompt tokens a request may use in a `context_tokens` window (None: no known window)."""
    if context_tokens is None:
        return None
    asked = request.get("max_tokens") or request.get("max_completion_tokens")
    reserve = int(asked) if asked else min(OUTPUT_RESERVE, context_tokens // 4)
    return max(0, context_tokens - reserve - int(context_tokens * MARGIN))


def _number(pattern: str, message: str) -> int | None:
    found = re.search(pattern, message, re.I)
    return int(found.group(1)) if found else None


def retrimmed_limit(tokens: int, message: str) -> int | None:
    """The smaller limit after an HTTP 400 that says a prompt of `tokens` (estimated) is too
    long (None when the message is about something else). The share kept is what the message's
    sizes allow, less 10%: the window less the completion over the messages' tokens ("maximum
    context length is 4096 tokens. However, you requested 5018 tokens (5010 in the messages, 8
    in the completion)", as OpenAI, vLLM and llama-cpp-python say it), else the window over the
    requested tokens, else TRIM_AGAIN; never below a quarter."""
    if not LENGTH_ERROR.search(message):
        return None
    window = _number(r"(?:context (?:length|window|size)(?: is| of)?|n_ctx)\D{0,3}(\d+)", message)
    requested = _number(r"requested\D{0,10}(\d+)", message)
    in_messages = _number(r"(\d+) (?:tokens )?in the messages", message)
    completion = _number(r"(\d+) (?:tokens )?in the completion", message) or 0
    share = TRIM_AGAIN
    if window and in_messages:
        share = (window - completion) / in_messages * 0.9
    elif window and requested:
        share = window / requested * 0.9
    return int(tokens * min(max(share, 0.25), TRIM_AGAIN if share >= 1 else 1.0))


def shrink(value: Any, tail: bool = False) -> tuple[Any, bool]:
    """About half of `value` (see the module docstring), and whether it shrank at all."""
    if isinstance(value, str):
        if len(value) <= MIN_TEXT:
            return value, False
        keep = len(value) // 4
        return f"{value[:keep]} [... {len(value) - 2 * keep} chars cut ...] {value[-keep:]}", True
    if isinstance(value, list):
        if len(value) > 1:
            half = len(value) // 2
            return (value[half:] if tail else value[: len(value) - half]), True
        if value:
            inner, shrank = shrink(value[0], tail)
            return ([inner] if shrank else []), True
        return value, False
    if isinstance(value, dict):
        by_size = sorted(value, key=lambda k: len(json.dumps(value[k], default=str)), reverse=True)
        for key in by_size:
            inner, shrank = shrink(value[key], tail)
            if shrank:
                return {**value, key: inner}, True
    return value, False


def clean(value: Any) -> Any:
    """`value` with every NaN or infinite number (an unknown cost, a ratio of nothing) as
    None: a prompt's JSON never holds NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def render(title: str, data: Any) -> str:
    """Inputs as a fenced JSON block under a one-line title (unknown numbers as null)."""
    text = json.dumps(clean(data), indent=1, default=str, allow_nan=False)
    return f"{title}\n\n```json\n{text}\n```"


def describe_cut(name: str, before: Any, after: Any) -> str:
    if after is None:
        return f"{name}: dropped"
    if isinstance(before, list) and len(after) != len(before):
        return f"{name}: {len(before)} -> {len(after)} items"
    size = len(json.dumps(before, default=str)), len(json.dumps(after, default=str))
    return f"{name}: {size[0]:,} -> {size[1]:,} characters"


@dataclass(frozen=True)
class Fitted:
    messages: list[dict[str, Any]]
    tokens: int
    """The estimated prompt tokens of `messages`."""
    cuts: tuple[str, ...] = ()
    """One line per part that was shrunk or dropped."""


@dataclass(frozen=True)
class Prompt:
    """A role's request before fitting: system prompt, a title and the ranked parts."""

    system: str
    title: str
    data: dict[str, Any]
    ranked: tuple[str, ...]
    """The parts of `data` least valuable first (cut first); parts not listed are kept."""
    required: frozenset[str] = frozenset()
    tail: frozenset[str] = frozenset()
    follow_up: tuple[dict[str, Any], ...] = field(default=())
    """Messages after the inputs (a reply and a drill-down), kept whole."""

    def messages(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": render(self.title, data)},
            *self.follow_up,
        ]

    def fit(self, limit: int | None) -> Fitted:
        data = clean(self.data)
        tokens = message_tokens(self.messages(data))
        if limit is None or tokens <= limit:
            return Fitted(self.messages(data), tokens)
        for name in (n for n in self.ranked if n in data):
            while tokens > limit and name in data:
                smaller, shrank = shrink(data[name], name in self.tail)
                if shrank:
                    data[name] = smaller
                elif name in self.required:
                    break
                else:
                    del data[name]
                tokens = message_tokens(self.messages(data))
            if tokens <= limit:
                break
        original = clean(self.data)
        if tokens > limit:
            raise PromptTooLarge(
                f"the prompt needs ~{tokens} tokens with every optional part cut, over the "
                f"{limit} a request may use (context_tokens less the reply's reserve)"
            )
        cuts = tuple(
            describe_cut(n, original[n], data.get(n))
            for n in original
            if data.get(n) != original[n]
        )
        return Fitted(self.messages(data), tokens, cuts)
