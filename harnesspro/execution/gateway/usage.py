"""Normalise provider usage objects into `Usage` (absent fields of a reported usage are 0), and
estimate what an answer without a usage costs, for the rollout's token budget only."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from harnesspro.core.records import Usage
from harnesspro.execution.gateway.upstream import count_tokens


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


def estimated_tokens(request: Mapping[str, Any] | None, reply: Mapping[str, Any] | None) -> int:
    """Tokens a call without reported usage is charged against the rollout's token budget:
    the request's tools and messages plus the reply, at four characters per token. Only the
    budget counts it (a runaway rollout still stops); records keep the tokens unknown."""
    request = request or {}
    text = json.dumps(request.get("tools") or []) + json.dumps(request.get("messages") or [])
    return count_tokens(text + json.dumps(reply or {}))
