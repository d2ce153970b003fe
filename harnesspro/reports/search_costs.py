"""The search's own spend (improver and synthesizer calls): a table, a CSV report, one line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harnesspro.core.atomic import atomic_path
from harnesspro.core.ledger import Ledger
from harnesspro.core.metrics import known_sum

UNKNOWN = "unknown"


USAGE_COLUMNS = ["uncached_input", "cached_input", "cache_write", "output", "reasoning"]


def search_cost_table(calls: pd.DataFrame) -> pd.DataFrame:
    """Per epoch and role: calls, failed calls, token parts and dollars, plus a run total row.

    Dollars are NaN (unknown) where any call of the group had no price, token parts where
    any call reported no usage (never a partial sum).
    """
    columns = ["epoch", "role", "calls", "failed", *USAGE_COLUMNS, "dollars", "latency_s"]
    if calls.empty:
        return pd.DataFrame([["total", "all", 0, 0, 0, 0, 0, 0, 0, 0.0, 0.0]], columns=columns)
    frame = calls.assign(failed=(calls["status"] != 200).astype(int))
    keys = ["epoch", "role"]
    grouped = frame.groupby(keys)
    table = grouped[["latency_s", "failed"]].sum()
    table[USAGE_COLUMNS] = grouped[USAGE_COLUMNS].agg(known_sum)
    table.insert(0, "calls", grouped.size())
    table["dollars"] = grouped["cost"].sum(min_count=1).where(~grouped["cost"].apply(_unknown))
    table = table.reset_index()
    total = {"epoch": "total", "role": "all", "calls": len(frame), "failed": frame["failed"].sum()}
    total.update({c: known_sum(frame[c]) for c in USAGE_COLUMNS})
    total["latency_s"] = frame["latency_s"].sum()
    total["dollars"] = None if frame["cost"].isna().any() else float(frame["cost"].sum())
    table = pd.concat([table.astype({"epoch": object}), pd.DataFrame([total])], ignore_index=True)
    return table[columns]


def _unknown(costs: pd.Series) -> bool:
    return bool(costs.isna().any())


def write_search_costs(ledger: Ledger, reports: Path) -> Path:
    """reports/search_costs.csv: the search-cost account by epoch and role, with a total."""
    reports.mkdir(parents=True, exist_ok=True)
    path = reports / "search_costs.csv"
    table = search_cost_table(ledger.search_calls())
    for column in USAGE_COLUMNS:  # unknown is written `unknown`, never empty or 0
        table[column] = [UNKNOWN if pd.isna(v) else int(v) for v in table[column]]
    table["dollars"] = [UNKNOWN if pd.isna(v) else v for v in table["dollars"]]
    with atomic_path(path) as tmp:
        table.to_csv(tmp, index=False)
    return path


def describe_search_costs(ledger: Ledger) -> str:
    """One line for the console: the run's search-cost account in total and by role."""
    calls = ledger.search_calls()
    if calls.empty:
        return "search (improver) calls: none"
    parts = []
    for role, group in calls.groupby("role", sort=False):
        cost = group["cost"]
        parts.append(f"{role} {len(group)}" + ("" if cost.isna().any() else f" ${cost.sum():.4f}"))
    total = "unknown $" if calls["cost"].isna().any() else f"${calls['cost'].sum():.4f}"
    return f"search (improver) calls: {len(calls)}, {total} ({', '.join(parts)})"
