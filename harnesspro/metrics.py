"""Aggregates over the ledger's rollouts: pass rate and cost per task per candidate, by split."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd

from harnesspro.records import Score

TOKEN_COLUMNS = ["uncached_input", "cached_input", "cache_write", "output"]


def scored(rollouts: pd.DataFrame, task_ids: Iterable[str]) -> pd.DataFrame:
    """Rollouts on the given tasks that count: infrastructure faults never do."""
    frame = rollouts[rollouts["task_id"].isin(list(task_ids))]
    return frame[frame["status"] != "infra_error"]


def candidate_scores(rollouts: pd.DataFrame, task_ids: Iterable[str]) -> dict[str, Score]:
    """Score of every candidate with scored rollouts on `task_ids` (pass = frozen test)."""
    frame = scored(rollouts, task_ids).dropna(subset=["pass"])
    scores = {}
    for candidate_id, group in frame.groupby("candidate_id"):
        scores[str(candidate_id)] = Score(
            candidate_id=str(candidate_id),
            pass_rate=float(group["pass"].mean()),
            # Unpriced model: cost unknown (NaN), never 0.
            cost_per_task=float(group["cost"].mean()) if group["cost"].notna().all() else math.nan,
            tokens_per_task=float(group[TOKEN_COLUMNS].sum(axis=1).mean()),
            n_rollouts=len(group),
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
    table = grouped[[*TOKEN_COLUMNS, "reasoning", "cost"]].sum()
    table.insert(0, "rollouts", grouped.size())
    table["cost_per_task"] = grouped["cost"].mean()
    table["infra_errors"] = rollouts[rollouts["status"] == "infra_error"].groupby(keys).size()
    table["infra_errors"] = table["infra_errors"].fillna(0).astype(int)
    return table.rename(columns={"cost": "dollars"}).reset_index()
