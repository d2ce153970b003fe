"""The ledger's rollouts frame (`Ledger.rollouts`) filtered and summed by core/metrics' rules
for typed rows, so a report's rule is the search's: each frame row is read as its typed row,
the rule picks rows, and the frame keeps those (with every column it had)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pandas as pd

from harnesspro.core import metrics
from harnesspro.core.ledger import rows_of
from harnesspro.core.records import RolloutRow
from harnesspro.evaluation.heldout import held_out

Rule = Callable[[list[RolloutRow]], list[RolloutRow]]


def kept(rollouts: pd.DataFrame, rule: Rule) -> pd.DataFrame:
    """The frame's rows whose typed rows `rule` keeps, in the frame's order."""
    rows = rows_of(rollouts)
    chosen = {id(row) for row in rule(rows)}
    mask = pd.Series([id(row) in chosen for row in rows], index=rollouts.index, dtype=bool)
    return rollouts[mask]


def row_tokens(rollouts: pd.DataFrame) -> pd.Series:
    """Each rollout's billed tokens (`metrics.row_tokens`: NaN where unknown)."""
    values = [metrics.row_tokens(row) for row in rows_of(rollouts)]
    return pd.Series(values, index=rollouts.index, dtype=float)


def scored(rollouts: pd.DataFrame, task_ids: Iterable[str]) -> pd.DataFrame:
    """`metrics.scored`: rollouts on the tasks that count (infrastructure faults never do)."""
    tasks = list(task_ids)
    return kept(rollouts, lambda rows: metrics.scored(rows, tasks))


def on_split(rollouts: pd.DataFrame, split: str) -> pd.DataFrame:
    """`metrics.on_split`: rollouts run on one split."""
    return kept(rollouts, lambda rows: metrics.on_split(rows, split))


def search_rollouts(rollouts: pd.DataFrame) -> pd.DataFrame:
    """`metrics.search_rollouts`: everything but the test split."""
    return kept(rollouts, metrics.search_rollouts)


def held_out_frame(rollouts: pd.DataFrame, tasks: Iterable[str]) -> pd.DataFrame:
    """Test-split rollouts on `tasks` with an official verdict (infra faults never count)."""
    names = list(tasks)
    return kept(rollouts, lambda rows: held_out(rows, names))
