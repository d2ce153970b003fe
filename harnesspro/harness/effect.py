"""Whether a harness change is in effect: the child's smoke rollout must differ observably
from the parent's.

Both run the same smoke task on the scripted policy with the same sampling seed, so with the
same harness they are the same rollout. Observable = what the gateway saw of each request
(digests of system prompt, first instruction turn, tool schema, request parameters) and the
harness's own events (hook events, notices, errors, commands, submissions). Tool outputs
and timestamps are left out: they carry clock times that differ between any two runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from harnesspro.core.records import RolloutResult

EVENT_FIELDS = {
    "hook": ("name",),
    "notice": ("text",),
    "error": ("message",),
    "tool_call": ("command",),
    "submit": (),
}


@dataclass(frozen=True)
class Signature:
    """The observable side of one smoke rollout."""

    requests: tuple[str, ...]
    events: tuple[str, ...]


def _lines(text: str) -> list[dict[str, object]]:
    found = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            found.append(record)
    return found


def signature(result: RolloutResult) -> Signature:
    """Request shapes from the gateway log, and the harness events of the trajectory."""
    requests = tuple(
        json.dumps(r["shape"], sort_keys=True) for r in _lines(result.gateway_log) if "shape" in r
    )
    events = []
    for record in _lines(result.trajectory):
        kind = str(record.get("type"))
        if kind in EVENT_FIELDS:
            values = [str(record.get(f)) for f in EVENT_FIELDS[kind]]
            events.append(":".join([kind, *values]))
    return Signature(requests, tuple(events))


def first_difference(parent: Signature, child: Signature) -> str:
    """'' when nothing observable changed, else what changed first."""
    for i, (a, b) in enumerate(zip(parent.requests, child.requests, strict=False)):
        if a != b:
            parts = [k for k, v in json.loads(b).items() if json.loads(a).get(k) != v]
            return f"request {i + 1} differs in {', '.join(parts)}"
    if len(parent.requests) != len(child.requests):
        return f"{len(parent.requests)} -> {len(child.requests)} model calls"
    for a, b in zip(parent.events, child.events, strict=False):
        if a != b:
            return f"trajectory event {a[:60]!r} -> {b[:60]!r}"
    if len(parent.events) != len(child.events):
        return f"{len(parent.events)} -> {len(child.events)} harness events"
    return ""


def not_in_effect(parent: Signature, child: Signature) -> str:
    """The gate's message when the change has no observable effect, else ''."""
    if first_difference(parent, child):
        return ""
    return (
        "the change has no observable effect on the smoke rollout (same prompts, tool "
        "schema, request parameters and harness events as the parent)"
    )
