"""Trajectory analyzer (catalog mode): reads a task's G rollouts together and diagnoses.

A problem seen in all G rollouts is a property of the harness; one seen once may be noise, so
each diagnosis carries how many of the G rollouts show it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harnesspro.records import Diagnosis

LONG_OUTPUT_CHARS = 1500
READ_ONLY = ("ls", "cat", "head", "tail", "wc")


@dataclass(frozen=True)
class Trace:
    """One train-split rollout as the improvers may see it."""

    key: str
    candidate_id: str
    task_id: str
    passed: bool
    trajectory: str
    output_tokens: int
    n_calls: int


def _events(trace: Trace) -> list[dict[str, object]]:
    return [json.loads(line) for line in trace.trajectory.splitlines() if line.strip()]


def _commands(events: list[dict[str, object]]) -> list[str]:
    return [str(e.get("command")) for e in events if e["type"] == "tool_call"]


def _first(events: list[dict[str, object]], test: Callable[[dict[str, object]], bool]) -> str:
    hit = next((e for e in events if test(e)), None)
    return (
        ""
        if hit is None
        else f"step {hit['step']}: {str(hit.get('output') or hit.get('command'))[:80]!r}"
    )


# kind -> (does this rollout show it?, evidence excerpt)
def _features(trace: Trace) -> dict[str, tuple[bool, str]]:
    events = _events(trace)
    commands = _commands(events)
    results = [e for e in events if e["type"] == "tool_result"]
    repeated = [c for c, n in Counter(commands).items() if n > 1]
    reads = [c for c in commands if c.split(" ", 1)[0] in READ_ONLY]
    words = [len(str(e.get("content") or "").split()) for e in events if e["type"] == "model_call"]
    errors = [e for e in results if "command not found" in str(e.get("output"))]
    unparsed = [e for e in results if str(e.get("output")).startswith("error: arguments")]
    timeouts = [e for e in results if "timed out after" in str(e.get("output"))]
    return {
        "task_failures": (not trace.passed, "" if trace.passed else "frozen test failed"),
        "long_tool_output": (
            any(int(str(e.get("chars", 0))) > LONG_OUTPUT_CHARS for e in results),
            _first(
                events,
                lambda e: (
                    e["type"] == "tool_result" and int(str(e.get("chars", 0))) > LONG_OUTPUT_CHARS
                ),
            ),
        ),
        "repeated_commands": (bool(repeated), f"repeated: {repeated[:2]}"),
        "exploration": (len(reads) >= 2, f"read-only commands: {reads[:3]}"),
        "verbose_replies": (bool(words) and sum(words) / len(words) > 30, f"{sum(words)} words"),
        "many_tool_calls": (len(commands) > 8, f"{len(commands)} tool calls"),
        "unrecovered_errors": (
            bool(errors) and not trace.passed,
            _first(events, lambda e: e in errors),
        ),
        "unparseable_replies": (bool(unparsed), _first(events, lambda e: e in unparsed)),
        "timeouts": (bool(timeouts), _first(events, lambda e: e in timeouts)),
    }


def analyze(traces: Sequence[Trace]) -> list[Diagnosis]:
    """Diagnoses per (candidate, task) over the G rollouts of each."""
    groups: dict[tuple[str, str], list[Trace]] = {}
    for trace in traces:
        groups.setdefault((trace.candidate_id, trace.task_id), []).append(trace)
    diagnoses = []
    for (candidate_id, task_id), group in sorted(groups.items()):
        shown: dict[str, list[str]] = {}
        for trace in group:
            for kind, (present, evidence) in _features(trace).items():
                if present:
                    shown.setdefault(kind, []).append(f"{trace.key[:8]} {evidence}")
        for kind, excerpts in sorted(shown.items()):
            share = len(excerpts) / len(group)
            diagnoses.append(
                Diagnosis(
                    candidate_id=candidate_id,
                    task_id=task_id,
                    kind=kind,
                    count=len(excerpts),
                    of=len(group),
                    effect_pass=-share if kind in ("task_failures", "unrecovered_errors") else 0.0,
                    effect_cost=0.0 if kind == "task_failures" else share,
                    evidence="; ".join(excerpts)[:500],
                )
            )
    return diagnoses


def prevalence(
    diagnoses: Sequence[Diagnosis], candidate_id: str, n_rollouts: int
) -> dict[str, float]:
    """Share of the candidate's `n_rollouts` train rollouts showing each kind."""
    shown: Counter[str] = Counter()
    for d in diagnoses:
        if d.candidate_id == candidate_id:
            shown[d.kind] += d.count
    return {kind: count / n_rollouts for kind, count in shown.items()} if n_rollouts else {}
