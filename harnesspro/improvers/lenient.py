"""Reply fields as models write them: normalised or trimmed rather than rejected, and replies
validated item by item (an item with a bad field is dropped with its reason; the others are
used).

Role schemas use these as `mode="before"` validators: `trimmed(n)` cuts an over-long text,
`clamped(lo, hi)` brings a number (or a percentage such as "-20%") into range, `slug` makes a
name of an identifier-like phrase, `directive` and `lever` map the phrasings models use to the
names the product knows, `listed` accepts one string for a list. `screen_items` is the
reply-level validator.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from harnesspro.harness.mechanisms.catalog import LEVERS

ELLIPSIS = " [...]"
LEVER_WORDS = {
    "prompt": ("prompt", "instruction", "system message", "wording", "persona", "guidance"),
    "context management": (
        "context", "memory", "history", "compress", "truncat", "summar", "output length",
        "tool output", "observation",
    ),
    "step cap": ("step", "turn", "iteration", "tool call budget", "tool-call budget", "call cap"),
    "retry/timeout policy": ("retry", "retries", "timeout", "time out", "backoff", "time limit"),
    "tool schema": ("tool schema", "tool definition", "tool description", "function", "tools"),
    "answer extraction": (
        "answer", "submission", "submit", "final output", "extraction", "format repair",
        "verification", "verify",
    ),
    "retrieval policy": ("retriev", "search", "lookup", "rag", "read files", "exploration"),
    "reasoning effort": ("reasoning", "effort", "think", "deliberat", "profile"),
}  # fmt: skip
"""Words of each lever in other phrasings, matched inside the model's lever text."""
DIRECTIVE_WORDS = (
    ("cost-first", ("cost", "cheap", "efficien", "lite", "budget")),
    ("performance-first", ("perf", "quality", "accura", "pass", "heavy", "success")),
    ("balanced", ("balanc", "medium", "trade", "middle")),
)


def trimmed(limit: int) -> Callable[[Any], Any]:
    """A text over `limit` characters, cut to fit (marked with an ellipsis)."""

    def trim(value: Any) -> Any:
        if isinstance(value, str) and len(value) > limit:
            return value[: limit - len(ELLIPSIS)] + ELLIPSIS
        return value

    return trim


def number(value: Any) -> Any:
    """A number as models write it: 0.05, "0.05", "+5%", "-20 %" (a percentage / 100)."""
    if isinstance(value, str):
        text = value.strip().replace(" ", "")
        match = re.fullmatch(r"([+-]?\d+(?:\.\d+)?)(%?)", text)
        if match:
            return float(match.group(1)) / (100 if match.group(2) else 1)
    return value


def clamped(low: float, high: float) -> Callable[[Any], Any]:
    """A number brought into [low, high] (a percentage read as a fraction first)."""

    def clamp(value: Any) -> Any:
        value = number(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return min(high, max(low, float(value)))
        return value

    return clamp


def slug(value: Any) -> Any:
    """A name as a slug: lower case, other characters as '-', at most 60 characters."""
    if not isinstance(value, str):
        return value
    text = re.sub(r"[^a-z0-9_-]+", "-", value.strip().lower()).strip("-_")
    return text[:60].rstrip("-_") or value


def directive(value: Any) -> Any:
    """'Cost first', 'COST_FIRST', 'performance' -> the directive's name (the directive whose
    word comes first in the text)."""
    if not isinstance(value, str):
        return value
    text = value.strip().lower()
    exact = text.replace("_", "-").replace(" ", "-")
    found = [
        (0 if exact == name else 1, text.find(word), name)
        for name, words in DIRECTIVE_WORDS
        for word in words
        if exact == name or word in text
    ]
    return min(found)[2] if found else value


def lever(text: str) -> str | None:
    """The catalog's lever a phrase means ('system prompt wording' -> 'prompt'), or None."""
    plain = text.strip().lower().replace("_", " ")
    if plain in LEVERS:
        return plain
    for name in LEVERS:  # the longest lever words first: "tool schema" before "tools"
        if any(word in plain for word in LEVER_WORDS.get(name, ()) if " " in word):
            return name
    for name in LEVERS:
        if any(word in plain for word in LEVER_WORDS.get(name, ())):
            return name
    close = difflib.get_close_matches(plain, LEVERS, n=1, cutoff=0.6)
    return close[0] if close else None


def listed(value: Any) -> Any:
    """One string where a list is asked for, as a list of it (comma-separated ones split)."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def _items_of(data: Any, key: str, marker: str) -> Any:
    """The reply as an object holding `key`: a bare list, a single item (it has `marker`) or
    the only list under another name are taken as `key`'s items."""
    if isinstance(data, list):
        return {key: data}
    if not isinstance(data, dict) or key in data:
        return data
    if marker in data:
        return {key: [data]}
    lists = [v for v in data.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
    return {**data, key: lists[0]} if len(lists) == 1 else data


def screen_items(data: Any, key: str, item: type[BaseModel], marker: str) -> Any:
    """The reply with only `key`'s items that validate as `item`; the others' reasons go to
    `dropped` (one line each)."""
    data = _items_of(data, key, marker)
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        return data
    kept, dropped = [], list(data.get("dropped") or [])
    for n, raw in enumerate(data[key]):
        try:
            kept.append(item.model_validate(raw))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in error["loc"]) or "(item)"
            label = raw.get("name") or raw.get("kind") if isinstance(raw, dict) else None
            dropped.append(f"{key}[{n}]{f' ({label})' if label else ''}: {where}: {error['msg']}")
    return {**data, key: kept, "dropped": dropped}
