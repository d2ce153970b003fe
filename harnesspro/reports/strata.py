"""The held-out tasks by the seed's difficulty, and the regressions on what the seed solved
(pure, over ledger frames).

A task's stratum is the seed's pass rate on it over the K held-out attempts: hard (never
passes), medium (passes under half), easy (half or more, not all), already solved (every
attempt). A regression is an already-solved task on which an operating point fails at least
one attempt.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

STRATA = ("hard", "medium", "easy", "already solved")
COLUMNS = ["harness", "candidate", "stratum", "tasks", "pass_rate"]


def stratum(seed_rate: float) -> str:
    """The difficulty of a task for the seed, from its pass rate on the task."""
    if seed_rate <= 0:
        return "hard"
    if seed_rate < 0.5:
        return "medium"
    return "easy" if seed_rate < 1 else "already solved"


def task_rates(frame: pd.DataFrame, cid: str) -> pd.Series:
    """Pass rate per task of one candidate's scored held-out rollouts."""
    mine = frame[frame["candidate_id"] == cid]
    return mine.groupby("task_id")["official_pass"].mean().astype(float)


def strata_of(frame: pd.DataFrame, seed_id: str) -> dict[str, str]:
    """Task -> stratum, by the seed's pass rate."""
    return {str(t): stratum(float(r)) for t, r in task_rates(frame, seed_id).items()}


def by_stratum(
    frame: pd.DataFrame, harnesses: Sequence[tuple[str, str]], seed_id: str
) -> pd.DataFrame:
    """One row per harness and stratum holding a task: how many tasks, and the harness's mean
    pass rate on them."""
    strata = strata_of(frame, seed_id)
    rows = []
    for label, cid in harnesses:
        rates = task_rates(frame, cid)
        for name in STRATA:
            tasks = [t for t, s in strata.items() if s == name and t in rates.index]
            if tasks:
                rows.append([label, cid, name, len(tasks), float(rates[tasks].mean())])
    return pd.DataFrame(rows, columns=COLUMNS)


def regressions(
    frame: pd.DataFrame, harnesses: Sequence[tuple[str, str]], seed_id: str
) -> pd.DataFrame:
    """harness, candidate, task, pass_rate: each already-solved task an operating point
    (every harness but the seed) fails at least once on."""
    solved = [t for t, s in strata_of(frame, seed_id).items() if s == "already solved"]
    rows = []
    for label, cid in harnesses:
        if cid == seed_id:
            continue
        rates = task_rates(frame, cid)
        rows += [[label, cid, t, float(rates[t])] for t in solved if t in rates and rates[t] < 1]
    return pd.DataFrame(rows, columns=["harness", "candidate", "task", "pass_rate"])
