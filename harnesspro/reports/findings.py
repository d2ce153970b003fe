"""Which finding led to which change, and its verdict: the improvement loop's trail, from the
ledger's plans (each records the analyzer's finding it answers, the candidate its edit made
and the verdict measured against its parent)."""

from __future__ import annotations

from typing import Any

import pandas as pd

COLUMNS = ("epoch", "finding", "parent_id", "directive", "mechanism", "child_id", "outcome")


def outcome_of(row: dict[Any, Any]) -> str:
    """The verdict; else why there is none (the edit's note, or not measured yet)."""
    if isinstance(row.get("verdict"), str) and row["verdict"]:
        return str(row["verdict"])
    note = row.get("note")
    if not isinstance(row.get("child_id"), str):
        return str(note) if isinstance(note, str) and note else "no candidate"
    return "not measured"


def findings_frame(plans: pd.DataFrame) -> pd.DataFrame:
    """One row per plan that answers a finding, in epoch order."""
    if "finding" not in plans.columns:
        return pd.DataFrame(columns=list(COLUMNS))
    rows = [
        {**{k: row[k] for k in COLUMNS[:-1]}, "outcome": outcome_of(row)}
        for row in plans.to_dict("records")
        if isinstance(row.get("finding"), str) and row["finding"]
    ]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def finding_lines(plans: pd.DataFrame) -> list[str]:
    """`finding -> change -> verdict`, one line per plan that answers a finding."""
    lines = []
    for r in findings_frame(plans).to_dict("records"):
        child = r["child_id"] if isinstance(r["child_id"], str) else "-"
        lines.append(
            f"epoch {r['epoch']}: {r['finding']} -> {r['mechanism']} on {r['parent_id']} "
            f"({r['directive']}) = {child} -> {r['outcome']}"
        )
    return lines
