"""Normalise provider usage objects into `Usage` (absent fields are 0, never None)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harnesspro.records import Usage


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0


def normalise_usage(raw: Mapping[str, Any] | None) -> Usage:
    """Split an OpenAI-style `usage` into billed parts.

    `prompt_tokens` already includes cached tokens, so uncached input is the difference.
    """
    if not raw:
        return Usage()
    prompt_details = raw.get("prompt_tokens_details") or {}
    output_details = raw.get("completion_tokens_details") or {}
    prompt = _int(raw.get("prompt_tokens"))
    cached = _int(prompt_details.get("cached_tokens"))
    cache_write = _int(prompt_details.get("cache_creation_tokens"))
    return Usage(
        uncached_input=max(prompt - cached - cache_write, 0),
        cached_input=cached,
        cache_write=cache_write,
        output=_int(raw.get("completion_tokens")),
        reasoning=_int(output_details.get("reasoning_tokens")),
    )
