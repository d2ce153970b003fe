"""Trajectory analyzer (catalog mode): reads a task's G rollouts together and diagnoses.

A problem seen in all G rollouts is a property of the harness; one seen once may be noise, so
each diagnosis carries how many of the G rollouts show it. `task_stats.py` gives the numbers
behind the diagnoses (what the llm analyzer reads) and `clusters` the problems that recur in
failed rollouts across tasks.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harnesspro.core.records import Diagnosis, Trace
from harnesspro.improvers.analyzer.impact import impact

LONG_OUTPUT_CHARS = 1500
READ_ONLY = ("ls", "cat", "head", "tail", "wc")
LOW_CACHE_SHARE = 0.3  # below this share of cached input tokens the prompt prefix churns
CHARS_PER_TOKEN = 4
Event = dict[str, object]


def events_of(trace: Trace) -> list[Event]:
    events = []
    for line in trace.trajectory.splitlines():
        try:
            event = json.loads(line) if line.strip() else None
        except ValueError:
            continue  # a harness may write a torn last line when it is killed
        if isinstance(event, dict) and "type" in event:
            events.append(event)
    return events


def of_kind(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e["type"] == kind]


def commands_of(events: list[Event]) -> list[str]:
    return [str(e.get("command")) for e in of_kind(events, "tool_call")]


def chars_of(event: Event) -> int:
    try:
        return int(str(event.get("chars", 0)))
    except ValueError:
        return 0


def _first(events: list[Event], test: Callable[[Event], bool]) -> str:
    hit = next((e for e in events if test(e)), None)
    return (
        ""
        if hit is None
        else f"step {hit.get('step')}: {str(hit.get('output') or hit.get('command'))[:80]!r}"
    )


def no_action_steps(events: list[Event]) -> list[object]:
    """Steps whose model call neither ran a tool nor submitted (unparsed, refused, empty)."""
    acted = {e.get("step") for e in events if e["type"] in ("tool_call", "submit")}
    return [e.get("step") for e in of_kind(events, "model_call") if e.get("step") not in acted]


def budget_hits(trace: Trace, events: list[Event]) -> int:
    """Blocked tool calls, plus one when the rollout ended on a budget or without submitting."""
    blocked = sum(
        "Tool call blocked" in str(e.get("output")) for e in of_kind(events, "tool_result")
    )
    unfinished = trace.status == "budget_exhausted" or (
        trace.status == "ok" and bool(events) and not of_kind(events, "submit")
    )
    return blocked + int(unfinished)


def empty_submissions(events: list[Event]) -> int:
    """Submissions refused as empty, or accepted before any tool call ran."""
    refused = [e for e in of_kind(events, "hook") if e.get("name") == "empty_submission_guard"]
    submits = of_kind(events, "submit")
    idle = bool(submits) and not of_kind(events, "tool_call")
    return len(refused) + int(idle)


# kind -> (does this rollout show it?, evidence excerpt)
def _features(trace: Trace) -> dict[str, tuple[bool, str]]:
    events = events_of(trace)
    commands = commands_of(events)
    results = of_kind(events, "tool_result")
    repeated = [c for c, n in Counter(commands).items() if n > 1]
    reads = [c for c in commands if c.split(" ", 1)[0] in READ_ONLY]
    words = [len(str(e.get("content") or "").split()) for e in of_kind(events, "model_call")]
    errors = [e for e in results if "command not found" in str(e.get("output"))]
    unparsed = [e for e in results if str(e.get("output")).startswith("error: arguments")]
    timeouts = [e for e in results if "timed out after" in str(e.get("output"))]
    idle, budget = no_action_steps(events), budget_hits(trace, events)
    empty = empty_submissions(events)
    share = trace.cached_share
    return {
        "task_failures": (not trace.passed, "" if trace.passed else "frozen test failed"),
        "long_tool_output": (
            any(chars_of(e) > LONG_OUTPUT_CHARS for e in results),
            _first(
                events, lambda e: e["type"] == "tool_result" and chars_of(e) > LONG_OUTPUT_CHARS
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
        "no_action_turns": (bool(idle), f"steps without an action: {idle[:4]}"),
        "budget_hits": (budget > 0, f"{budget} budget hits, status {trace.status}"),
        "empty_submissions": (empty > 0, f"{empty} empty submissions"),
        "low_cache_share": (
            share is not None and trace.n_calls >= 3 and share < LOW_CACHE_SHARE,
            f"cached share {share or 0:.0%} over {trace.n_calls} calls",
        ),
        "rollout_errors": (
            trace.status in ("timeout", "harness_error"),
            f"rollout ended {trace.status}",
        ),
    }


def groups_of(traces: Sequence[Trace]) -> dict[tuple[str, str], list[Trace]]:
    groups: dict[tuple[str, str], list[Trace]] = {}
    for trace in traces:
        groups.setdefault((trace.candidate_id, trace.task_id), []).append(trace)
    return dict(sorted(groups.items()))


def analyze(traces: Sequence[Trace]) -> list[Diagnosis]:
    """Diagnoses per (candidate, task) over the G rollouts of each, with their impact measured
    by contrasting the rollouts that show them with those that do not (`impact`)."""
    diagnoses = []
    for (candidate_id, task_id), group in groups_of(traces).items():
        shown: dict[str, list[Trace]] = {}
        evidence: dict[str, list[str]] = {}
        for trace in group:
            for kind, (present, excerpt) in _features(trace).items():
                if present:
                    shown.setdefault(kind, []).append(trace)
                    evidence.setdefault(kind, []).append(f"{trace.key[:8]} {excerpt}")
        for kind, flagged in sorted(shown.items()):
            d_pass, d_cost = impact(group, {t.key for t in flagged})
            diagnoses.append(
                Diagnosis(
                    candidate_id=candidate_id,
                    task_id=task_id,
                    kind=kind,
                    count=len(flagged),
                    of=len(group),
                    effect_pass=round(d_pass, 4),
                    effect_cost=round(d_cost, 4),
                    evidence="; ".join(evidence[kind])[:500],
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
    if not n_rollouts:
        return {}
    # An llm analyzer's counts are claims: a share above 1 would inflate predictions.
    return {kind: min(1.0, count / n_rollouts) for kind, count in shown.items()}


@dataclass(frozen=True)
class Cluster:
    """A problem kind shown by failed rollouts of one candidate on several tasks."""

    candidate_id: str
    kind: str
    tasks: tuple[str, ...]
    failed_rollouts: int


def clusters(traces: Sequence[Trace], min_tasks: int = 2) -> list[Cluster]:
    """Kinds (other than the failure itself) seen in failed rollouts on >= `min_tasks` tasks."""
    seen: dict[tuple[str, str], list[str]] = {}
    for trace in traces:
        if trace.passed:
            continue
        for kind, (present, _) in _features(trace).items():
            if present and kind != "task_failures":
                seen.setdefault((trace.candidate_id, kind), []).append(trace.task_id)
    return [
        Cluster(cid, kind, tuple(sorted(set(tasks))), len(tasks))
        for (cid, kind), tasks in sorted(seen.items())
        if len(set(tasks)) >= min_tasks
    ]
