"""The shape of a request: digests of what a harness controls in every call.

Logged with each call so that a harness change can be seen in effect (system prompt, first
instruction turn, tool schema, request parameters) without keeping prompt text in the log.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

TRANSPORT = ("messages", "tools", "model", "stream", "stream_options")


def _digest(value: object) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def request_shape(body: Mapping[str, Any]) -> dict[str, str]:
    """Digests of the system turns, the first user turn, the tools and the parameters."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, Mapping)]
    system = [m.get("content") for m in messages if m.get("role") == "system"]
    first_user = next((m.get("content") for m in messages if m.get("role") == "user"), None)
    params = {k: v for k, v in body.items() if k not in TRANSPORT}
    return {
        "system": _digest(system),
        "first_user": _digest(first_user),
        "tools": _digest(body.get("tools")),
        "params": _digest(params),
    }
