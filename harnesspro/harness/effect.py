"""Whether a harness change is in effect: the child's smoke rollouts must differ observably
from the parent's.

Both run the same smoke tasks on the scripted policy with the same sampling seed, so with the
same harness they are the same rollouts. The tasks are the trivial `smoke` task and the fixed
`effect_tasks/` (many tool calls, long outputs, failing commands), never a task of a run's
splits, so that a hook firing after N calls, on long outputs or on failures shows. Observable
= what the gateway saw of each request (digests of system prompt, first instruction turn,
tool schema, request parameters) and the harness's own events (hook events, notices, errors,
commands, submissions). Tool outputs and timestamps are left out: they carry clock times that
differ between any two runs.

A change not shown in effect there is judged later on the coreset's first attempts
(`coreset_difference`): a real model samples differently each time, so only what the harness
decides counts there, request shapes and hook events, against every attempt of the parent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from harnesspro.core.records import RolloutResult
from harnesspro.harness.validate import smoke_rollout

EFFECT_TASKS = Path(__file__).parent / "effect_tasks"
SMOKE = "smoke"
"""The trivial smoke task's name among the signatures (its rollout is the validator's)."""
NOT_IN_EFFECT = "the change has no observable effect on the smoke tasks"
HARNESS_EVENTS = ("hook", "notice")
"""Trajectory events the harness decides (what a model samples is left out on the coreset)."""

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
    return signature_of(result.gateway_log, result.trajectory)


def signature_of(gateway_log: str, trajectory: str) -> Signature:
    """`signature` from a rollout's saved gateway log and trajectory texts."""
    requests = tuple(
        json.dumps(r["shape"], sort_keys=True) for r in _lines(gateway_log) if "shape" in r
    )
    events = []
    for record in _lines(trajectory):
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


def effect_tasks() -> tuple[Path, ...]:
    """The fixed smoke tasks beside the trivial one, by name."""
    return tuple(sorted(p for p in EFFECT_TASKS.iterdir() if (p / "task.toml").is_file()))


def _done(result: RolloutResult) -> Future[RolloutResult]:
    future: Future[RolloutResult] = Future()
    future.set_result(result)
    return future


SMOKE_THREADS = 4
"""Smoke rollouts run at once: each mostly waits on its sandboxed processes, and none of the
run's rollouts is in flight while a candidate is made."""


def signatures(
    candidate: Path, sandbox: str, smoke: RolloutResult | None = None
) -> dict[str, Signature]:
    """The candidate's signature on each smoke task (`smoke`: the validator's rollout, when
    given, on the trivial one); the smoke rollouts run side by side (each on its own task)."""
    tasks = effect_tasks()
    with ThreadPoolExecutor(max_workers=SMOKE_THREADS) as pool:
        trivial = _done(smoke) if smoke else pool.submit(smoke_rollout, candidate, sandbox)
        others = [pool.submit(smoke_rollout, candidate, sandbox, task) for task in tasks]
        found = {SMOKE: signature(trivial.result())}
        found |= {task.name: signature(f.result()) for task, f in zip(tasks, others, strict=True)}
    return found


def not_in_effect(parent: Mapping[str, Signature], child: Mapping[str, Signature]) -> str:
    """The gate's message when the change has no observable effect on any smoke task, else
    ''."""
    if any(first_difference(parent[name], child[name]) for name in parent if name in child):
        return ""
    return (
        f"{NOT_IN_EFFECT} ({', '.join(parent)}: same "
        "prompts, tool schema, request parameters and harness events as the parent)"
    )


def harness_marks(sig: Signature) -> tuple[set[str], set[str]]:
    """The request shapes and the harness-decided events (hooks, notices) of a rollout."""
    events = {e for e in sig.events if e.split(":", 1)[0] in HARNESS_EVENTS}
    return set(sig.requests), events


def coreset_difference(parent: Sequence[Signature], child: Signature) -> str:
    """What the child's rollout of a task shows that none of the parent's rollouts of it do
    (a request shape, a hook event), or a hook event every parent rollout shows and the
    child's lacks; '' when nothing."""
    if not parent:
        return ""
    marks = [harness_marks(p) for p in parent]
    shapes, events = harness_marks(child)
    new_shapes = [json.loads(s) for s in shapes - set().union(*(m[0] for m in marks))]
    if new_shapes:
        known = [json.loads(s) for m in marks for s in m[0]]
        fields = {
            k for new in new_shapes for k, v in new.items() if all(o.get(k) != v for o in known)
        }
        return f"a request shape its parent never sent ({', '.join(sorted(fields)) or 'a new mix'})"
    new_events = sorted(events - set().union(*(m[1] for m in marks)))
    if new_events:
        return f"harness event {new_events[0][:60]!r}, never in its parent's rollouts"
    lost = sorted(set.intersection(*(m[1] for m in marks)) - events)
    if lost:
        return f"no harness event {lost[0][:60]!r}, which every parent rollout shows"
    return ""
