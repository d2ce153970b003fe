"""Cost reports as frames: per epoch (candidates, the epoch's total, the running total and the
seed's baseline) and per run (target and search accounts by epoch, cumulative). Pure data from
ledger tables; an unknown cost (an unpriced model) stays NaN here and is written as `unknown`,
and so do unknown token counts (NULL in the ledger: the provider reported no usage): a group
with any unknown rollout has unknown totals, never a partial sum.

Two per-unit figures, named for what they divide by: `dollars_per_rollout` (one attempt at
one task: what the Pareto plot calls cost per task) and `dollars_per_task` (every attempt a
group made at a task: dollars over the distinct tasks it ran).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from harnesspro.core.atomic import atomic_path
from harnesspro.core.metrics import TOKEN_COLUMNS, known_sum
from harnesspro.reports.rollout_frames import row_tokens

PARTS = [*TOKEN_COLUMNS, "reasoning"]
COUNTS = [*PARTS, "tokens"]
"""Token columns: written as whole numbers, or `unknown`."""
UNKNOWN = "unknown"


def _parts(frame: pd.DataFrame) -> dict[str, float]:
    """Each token part's sum and their total; NaN (unknown) where any rollout's is unknown."""
    return {
        **{part: known_sum(frame[part]) for part in PARTS},
        "tokens": known_sum(row_tokens(frame)),
    }


def _row(scope: str, epoch: object, candidate: str, split: str, group: pd.DataFrame) -> dict:
    counted = group[group["status"] != "infra_error"]
    dollars = known_sum(counted["cost"])
    rollouts, tasks = len(counted), counted["task_id"].nunique()
    parts = _parts(counted)
    tokens = parts["tokens"]
    return {
        "scope": scope,
        "epoch": epoch,
        "candidate_id": candidate,
        "split": split,
        "rollouts": rollouts,
        "tasks": tasks,
        **parts,
        "dollars": dollars,
        "dollars_per_task": dollars / tasks if tasks else math.nan,
        "dollars_per_rollout": dollars / rollouts if rollouts else math.nan,
        "tokens_per_rollout": tokens / rollouts if rollouts else math.nan,
        "infra_errors": int((group["status"] == "infra_error").sum()),
    }


def with_split(rollouts: pd.DataFrame) -> pd.DataFrame:
    """Ledgers from before splits hold only coreset rollouts."""
    return rollouts.assign(split=rollouts["split"].fillna("coreset"))


def epoch_costs(rollouts: pd.DataFrame, epoch: int, seed_id: str) -> pd.DataFrame:
    """Search rollouts of one epoch by candidate and split, then the epoch's total, the running
    total over epochs 0..N and the seed's baseline (its epoch-0 coreset rollouts)."""
    search = with_split(rollouts)
    search = search[search["split"] != "test"]
    this = search[search["epoch"] == epoch]
    rows = [
        _row("candidate", epoch, str(cid), str(split), group)
        for (cid, split), group in this.groupby(["candidate_id", "split"])
    ]
    rows.append(_row("epoch total", epoch, "all", "all", this))
    rows.append(_row("running total", f"0-{epoch}", "all", "all", search[search["epoch"] <= epoch]))
    seed = search[(search["candidate_id"] == seed_id) & (search["split"] == "coreset")]
    rows.append(_row("seed baseline", 0, seed_id, "coreset", seed[seed["epoch"] == 0]))
    return pd.DataFrame(rows)


def _account(label: str, epoch: object, frame: pd.DataFrame, unit: str) -> dict:
    return {
        "epoch": epoch,
        "account": label,
        unit: len(frame),
        **_parts(frame),
        "dollars": known_sum(frame["cost"]),
    }


def run_costs(rollouts: pd.DataFrame, search_calls: pd.DataFrame) -> pd.DataFrame:
    """Per epoch: the target account (search rollouts, infra faults included: they were
    billed) and the search account (improver calls); then the held-out evaluation and a
    total row. `cumulative_dollars` runs over the rows above it (NaN once any is unknown)."""
    frame = with_split(rollouts)
    search = frame[frame["split"] != "test"]
    epochs = sorted(set(search["epoch"]) | set(search_calls["epoch"]))
    rows = []
    for epoch in epochs:
        rows.append(_account("target", int(epoch), search[search["epoch"] == epoch], "count"))
        calls = search_calls[search_calls["epoch"] == epoch]
        if not calls.empty:
            rows.append(_account("search", int(epoch), calls, "count"))
    held_out = frame[frame["split"] == "test"]
    if not held_out.empty:
        rows.append(_account("held-out evaluation", "final", held_out, "count"))
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    # A NaN anywhere above poisons the running sum: once unknown, unknown from there on.
    table["cumulative_dollars"] = table["dollars"].cumsum(skipna=False)
    total: dict[str, object] = {"epoch": "total", "account": "all"}
    total["count"] = table["count"].sum()
    total.update({c: known_sum(table[c]) for c in COUNTS})
    total["dollars"] = known_sum(table["dollars"])
    total["cumulative_dollars"] = total["dollars"]
    return pd.concat([table, pd.DataFrame([total])], ignore_index=True)


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    """Write a cost frame; unknown dollars and token counts are written as `unknown`, never 0
    or empty."""
    path.parent.mkdir(parents=True, exist_ok=True)
    out = frame.copy()
    for column in [c for c in out.columns if "dollars" in c or c == "tokens_per_rollout"]:
        out[column] = out[column].map(lambda v: UNKNOWN if pd.isna(v) else v)
    for column in [c for c in out.columns if c in COUNTS]:
        out[column] = out[column].map(lambda v: UNKNOWN if pd.isna(v) else int(v))
    out.to_csv(path, index=False)
    return path


def write_run_costs(rollouts: pd.DataFrame, search_calls: pd.DataFrame, folder: Path) -> Path:
    """reports/costs.csv: both accounts by epoch, the held-out evaluation and the total
    (written whole or not at all)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "costs.csv"
    with atomic_path(path) as tmp:
        write_csv(run_costs(rollouts, search_calls), tmp)
    return path
