"""The trajectory judgement: the `no-synth` ablation's whole scorer (no frozen test), and by
default (`evolution.judge_trajectory`) a second condition on every frozen test's pass.

As a judge reading the transcript would, it passes a rollout that submitted, whose last
command output shows no failure, and that logged no error; it cannot see whether the files
hold the right content, which is what the frozen tests check.
"""

from __future__ import annotations

import json

from harnesspro.improvers.testsynth.offline import FAILURE_MARKERS


def judge(trajectory: str) -> bool:
    """Pass when the trajectory ends in a submission after a clean last tool result."""
    events = []
    for line in trajectory.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            return False  # a garbled transcript does not look like a success
    if not any(e.get("type") == "submit" for e in events):
        return False
    if any(e.get("type") == "error" for e in events):
        return False
    results = [str(e.get("output")) for e in events if e.get("type") == "tool_result"]
    return not results or not any(m in results[-1] for m in FAILURE_MARKERS)
