"""Per-task figures from a candidate's traces: pass rate, tokens by part, calls, cost."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from harnesspro.core.records import Trace
from harnesspro.improvers.analyzer.rules import (
    CHARS_PER_TOKEN,
    LONG_OUTPUT_CHARS,
    Event,
    budget_hits,
    chars_of,
    commands_of,
    empty_submissions,
    events_of,
    groups_of,
    no_action_steps,
    of_kind,
)


def token_parts(trace: Trace, events: list[Event]) -> dict[str, float | None]:
    """Input tokens by part of the prompt, estimated: each call re-sends the earlier replies
    and tool results; what the measured input leaves over is the fixed prefix (system prompt,
    task, tool schema), None when the measured input is unknown."""
    replies: dict[object, int] = Counter()
    for e in events:
        if e["type"] == "model_call":
            replies[e.get("step")] += len(str(e.get("content") or ""))
        elif e["type"] == "tool_call":
            replies[e.get("step")] += len(str(e.get("command") or ""))
    results: dict[object, int] = Counter()
    for e in of_kind(events, "tool_result"):
        results[e.get("step")] += chars_of(e)
    calls = [e.get("step") for e in of_kind(events, "model_call")]
    history_replies = history_results = 0.0
    for k in range(len(calls)):
        history_replies += sum(replies[s] for s in calls[:k])
        history_results += sum(results[s] for s in calls[:k])
    replies_t, results_t = history_replies / CHARS_PER_TOKEN, history_results / CHARS_PER_TOKEN
    prefix = None
    if trace.uncached_input is not None and trace.cached_input is not None:
        measured = trace.uncached_input + trace.cached_input
        prefix = max(0.0, measured - replies_t - results_t)
    return {
        "prefix": prefix,
        "replies": replies_t,
        "tool_results": results_t,
    }


@dataclass(frozen=True)
class TaskStats:
    """Means over a candidate's G rollouts of one task (what the llm analyzer reads)."""

    candidate_id: str
    task_id: str
    rollouts: int
    passed: int
    tool_calls: float
    repeated_commands: float
    long_outputs: float
    no_action_turns: float
    budget_hits: float
    timeouts: float
    empty_submissions: float
    cached_share: float | None
    output_tokens: float | None
    """None when any rollout's usage is unknown (the provider reported none)."""
    input_tokens_by_part: dict[str, float | None]
    statuses: tuple[str, ...]


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 2) if values else 0.0


def _known_mean(values: Sequence[float | None]) -> float | None:
    """The mean, or None when any value is unknown (never a mean of the known ones)."""
    known = [v for v in values if v is not None]
    return _mean(known) if len(known) == len(values) else None


def task_stats(traces: Sequence[Trace]) -> list[TaskStats]:
    """Per (candidate, task): the numbers behind the diagnoses."""
    stats = []
    for (candidate_id, task_id), group in groups_of(traces).items():
        per = [(t, events_of(t)) for t in group]
        commands = [commands_of(ev) for _, ev in per]
        shares = [s for t, _ in per if (s := t.cached_share) is not None]
        parts = [token_parts(t, ev) for t, ev in per]
        stats.append(
            TaskStats(
                candidate_id=candidate_id,
                task_id=task_id,
                rollouts=len(group),
                passed=sum(t.passed for t in group),
                tool_calls=_mean([len(c) for c in commands]),
                repeated_commands=_mean(
                    [sum(n - 1 for n in Counter(c).values() if n > 1) for c in commands]
                ),
                long_outputs=_mean(
                    [
                        sum(chars_of(e) > LONG_OUTPUT_CHARS for e in of_kind(ev, "tool_result"))
                        for _, ev in per
                    ]
                ),  # fmt: skip
                no_action_turns=_mean([len(no_action_steps(ev)) for _, ev in per]),
                budget_hits=_mean([budget_hits(t, ev) for t, ev in per]),
                timeouts=_mean(
                    [sum("timed out after" in str(e.get("output")) for e in ev) for _, ev in per]
                ),
                empty_submissions=_mean([empty_submissions(ev) for _, ev in per]),
                cached_share=round(sum(shares) / len(shares), 3) if shares else None,
                output_tokens=_known_mean([t.output_tokens for t in group]),
                input_tokens_by_part={k: _known_mean([p[k] for p in parts]) for k in parts[0]},
                statuses=tuple(sorted({t.status for t in group})),
            )
        )
    return stats
