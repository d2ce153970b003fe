"""The ledger's rollouts frame (`Ledger.rollouts`) filtered and summed as core/metrics does
for typed rows: the reports' tables are pure frames."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from harnesspro.core.metrics import TOKEN_COLUMNS


def row_tokens(rollouts: pd.DataFrame) -> pd.Series:
    """Each rollout's billed tokens; NaN where the counts are unknown (NULL in the ledger: the
    provider reported no usage for some call), never a partial sum read as 0."""
    parts = rollouts[TOKEN_COLUMNS].astype(float)
    return parts.sum(axis=1, min_count=len(TOKEN_COLUMNS))


def scored(rollouts: pd.DataFrame, task_ids: Iterable[str]) -> pd.DataFrame:
    """Rollouts on the given tasks that count: infrastructure faults never do."""
    frame = rollouts[rollouts["task_id"].isin(list(task_ids))]
    return frame[frame["status"] != "infra_error"]


def on_split(rollouts: pd.DataFrame, split: str) -> pd.DataFrame:
    """Rollouts run on one split; ledgers from before splits hold only coreset rollouts."""
    return rollouts[rollouts["split"].fillna("coreset") == split]


def search_rollouts(rollouts: pd.DataFrame) -> pd.DataFrame:
    """Rollouts the search spent (coreset and validation): everything but the test split."""
    return rollouts[rollouts["split"].fillna("coreset") != "test"]


def held_out_frame(rollouts: pd.DataFrame, tasks: Iterable[str]) -> pd.DataFrame:
    """Test-split rollouts on `tasks` with an official verdict (infra faults never count)."""
    return scored(on_split(rollouts, "test"), tasks).dropna(subset=["official_pass"])
