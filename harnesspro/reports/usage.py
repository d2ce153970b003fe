"""Cost per solved task, tool calls per task and the tool-error rate of each harness on the
held-out attempts.

Cost per solved task is the harness's whole held-out spend over the rollouts that passed
(unknown when any cost is, infinite when none passed). Tool calls and tool errors come from
each rollout's trajectory: a `tool_call` line is a call; a `tool_result` whose output shows
a failed command (`ERROR_MARKERS`: a missing command, a traceback, a syntax error, a missing
file, a timeout, a non-zero exit without output) is an error. `tool_counts` is pure;
`load_tool_counts` reads the run folder.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from harnesspro.core.metrics import known_sum

ERROR_MARKERS = (
    "command not found",
    "Traceback (most recent call last)",
    "syntax error",
    "No such file or directory",
    "(command timed out",
)
NONZERO_EXIT = re.compile(r"\(no output, exit code [1-9]\d*\)")
COLUMNS = [
    "harness", "candidate", "rollouts", "solved", "cost_per_solved",
    "tool_calls_per_task", "tool_error_rate",
]  # fmt: skip


def is_tool_error(output: str) -> bool:
    """Whether a tool result's text shows that the command failed."""
    return any(m in output for m in ERROR_MARKERS) or bool(NONZERO_EXIT.search(output))


def tool_counts(trajectory: str) -> tuple[int, int]:
    """(tool calls, tool errors) in one trajectory's JSON lines; torn lines are skipped."""
    calls = errors = 0
    for line in trajectory.splitlines():
        try:
            event = json.loads(line) if line.strip() else None
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("type") == "tool_call":
            calls += 1
        elif event.get("type") == "tool_result" and is_tool_error(str(event.get("output", ""))):
            errors += 1
    return calls, errors


def load_tool_counts(root: Path, frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with `tool_calls` and `tool_errors` from each rollout's trajectory.jsonl under
    `root` (NaN where the artifacts are gone)."""
    calls, errors = [], []
    for key in frame["key"]:
        path = root / "rollouts" / str(key) / "trajectory.jsonl"
        c, e = tool_counts(path.read_text()) if path.is_file() else (math.nan, math.nan)
        calls.append(c)
        errors.append(e)
    return frame.assign(tool_calls=calls, tool_errors=errors)


def _cost_per_solved(rows: pd.DataFrame) -> float:
    spent, solved = known_sum(rows["cost"]), int(rows["official_pass"].sum())
    if math.isnan(spent):
        return math.nan
    return spent / solved if solved else math.inf


def usage(frame: pd.DataFrame, harnesses: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """One row per harness: rollouts, solved (passing rollouts), cost per solved task, mean
    tool calls per rollout and tool errors per tool call. `frame` is scored held-out
    rollouts with `tool_calls` and `tool_errors` (from `load_tool_counts`)."""
    rows = []
    for label, cid in harnesses:
        mine = frame[frame["candidate_id"] == cid]
        if mine.empty:
            continue
        calls = float(mine["tool_calls"].sum())
        error_rate = float(mine["tool_errors"].sum()) / calls if calls else math.nan
        rows.append(
            [label, cid, len(mine), int(mine["official_pass"].sum()), _cost_per_solved(mine),
             float(mine["tool_calls"].mean()), error_rate]
        )  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS)
