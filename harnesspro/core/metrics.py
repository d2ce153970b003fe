"""Aggregates over the ledger's rollouts: pass rate and cost per task per candidate, by split."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from harnesspro.core.records import Score

TOKEN_COLUMNS = ["uncached_input", "cached_input", "cache_write", "output"]


def row_tokens(rollouts: pd.DataFrame) -> pd.Series:
    """Each rollout's billed tokens; NaN where the counts are unknown (NULL in the ledger: the
    provider reported no usage for some call), never a partial sum read as 0."""
    parts = rollouts[TOKEN_COLUMNS].astype(float)
    return parts.sum(axis=1, min_count=len(TOKEN_COLUMNS))


def known_mean(values: pd.Series) -> float:
    """The mean, or NaN (unknown) when any value is unknown: one unknown rollout makes the
    candidate's figure unknown, as for dollars."""
    return float(values.mean()) if len(values) and values.notna().all() else math.nan


def known_sum(values: pd.Series) -> float:
    """The sum, or NaN (unknown) when any value is unknown."""
    return float(values.astype(float).sum()) if values.notna().all() else math.nan


def scored(rollouts: pd.DataFrame, task_ids: Iterable[str]) -> pd.DataFrame:
    """Rollouts on the given tasks that count: infrastructure faults never do."""
    frame = rollouts[rollouts["task_id"].isin(list(task_ids))]
    return frame[frame["status"] != "infra_error"]


@dataclass(frozen=True)
class Shortfall:
    """A candidate missing scored rollouts: it is incomplete, never compared on a part."""

    candidate_id: str
    missing: int
    """Task x attempts without a scored rollout (never run, or only infrastructure errors)."""
    infra: int
    """Of those, how many ended in an infrastructure error."""
    wanted: int
    """Task x attempts it needed."""

    def describe(self) -> str:
        """`c003 (2 of 6 missing, 1 an infrastructure error)`."""
        infra = f", {self.infra} an infrastructure error" if self.infra == 1 else ""
        infra = infra or (f", {self.infra} infrastructure errors" if self.infra else "")
        return f"{self.candidate_id} ({self.missing} of {self.wanted} missing{infra})"


def shortfalls(
    rollouts: pd.DataFrame,
    candidate_ids: Iterable[str],
    task_ids: Iterable[str],
    attempts: Iterable[int],
) -> dict[str, Shortfall]:
    """Each of `candidate_ids` lacking a scored rollout on some task x attempt; infrastructure
    errors are no rollout (a harness cannot turn its failures into absences that way)."""
    need = {(str(t), int(a)) for t in task_ids for a in attempts}
    frame = rollouts[rollouts["task_id"].isin([t for t, _ in need])]
    have: dict[str, set[tuple[str, int]]] = {}
    faults: dict[str, set[tuple[str, int]]] = {}
    for cid, task, attempt, status in zip(
        frame["candidate_id"], frame["task_id"], frame["attempt"], frame["status"], strict=True
    ):
        into = faults if status == "infra_error" else have
        into.setdefault(str(cid), set()).add((str(task), int(attempt)))
    found = {}
    for cid in candidate_ids:
        missing = need - have.get(cid, set())
        if missing:
            infra = len(missing & faults.get(cid, set()))
            found[cid] = Shortfall(cid, len(missing), infra, len(need))
    return found


def candidate_scores(rollouts: pd.DataFrame, task_ids: Iterable[str]) -> dict[str, Score]:
    """Score of every candidate with scored rollouts on `task_ids` (pass = frozen test)."""
    frame = scored(rollouts, task_ids).dropna(subset=["pass"])
    scores = {}
    for candidate_id, group in frame.groupby("candidate_id"):
        scores[str(candidate_id)] = Score(
            candidate_id=str(candidate_id),
            pass_rate=float(group["pass"].mean()),
            # Unpriced model, or no usage reported: unknown (NaN), never 0.
            cost_per_task=known_mean(group["cost"]),
            tokens_per_task=known_mean(row_tokens(group)),
            n_rollouts=len(group),
            calls_per_task=float(group["n_calls"].mean()),
        )
    return scores


def covering(rollouts: pd.DataFrame, coreset: Iterable[str]) -> pd.DataFrame:
    """Rollouts of the candidates with scored rollouts on every coreset task: after a coreset
    refresh, only they are compared (one common task set)."""
    tasks = set(coreset)
    frame = scored(rollouts, tasks).dropna(subset=["pass"])
    counts = frame.groupby("candidate_id")["task_id"].nunique()
    full = set(counts[counts == len(tasks)].index)
    return rollouts[rollouts["candidate_id"].isin(full)]


def on_split(rollouts: pd.DataFrame, split: str) -> pd.DataFrame:
    """Rollouts run on one split; ledgers from before splits hold only coreset rollouts."""
    return rollouts[rollouts["split"].fillna("coreset") == split]


def search_rollouts(rollouts: pd.DataFrame) -> pd.DataFrame:
    """Rollouts the search spent (coreset and validation): everything but the test split."""
    return rollouts[rollouts["split"].fillna("coreset") != "test"]


def cost_table(rollouts: pd.DataFrame) -> pd.DataFrame:
    """Per candidate and split: rollouts, token parts and dollars in total and per task."""
    rollouts = rollouts.assign(split=rollouts["split"].fillna("coreset"))
    frame = rollouts[rollouts["status"] != "infra_error"]
    keys = ["candidate_id", "split"]
    grouped = frame.groupby(keys)
    # an unknown part (NULL) makes the group's total unknown, never a partial sum
    table = grouped[[*TOKEN_COLUMNS, "reasoning", "cost"]].agg(known_sum)
    table.insert(0, "rollouts", grouped.size())
    table["cost_per_task"] = grouped["cost"].agg(known_mean)
    table["infra_errors"] = rollouts[rollouts["status"] == "infra_error"].groupby(keys).size()
    table["infra_errors"] = table["infra_errors"].fillna(0).astype(int)
    return table.rename(columns={"cost": "dollars"}).reset_index()
