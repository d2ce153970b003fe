"""Latency and lever coverage: data first (pure functions over ledger frames), then CSV.

- `candidate_latency`: per candidate on a split, pass rate, cost per task and mean latency
  per rollout. Latency is the harness's wall time in the sandbox; grading runs after it and
  is not included. Infrastructure failures are left out, as in every score.
- `lever_coverage`: per lever, how many plans touched it and their verdicts (broad
  exploration of levers correlated with higher gain in the benchmark study). A catalog plan
  touches its mechanism's lever; a free plan the levers it names.

`with_untried` and `latency_with_verdicts` prepare the same data for the dashboard.
`write_lever_reports` writes reports/latency.csv and reports/levers.csv.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from harnesspro.harness.mechanisms.catalog import BUNDLE_SEP, CATALOG, LEVERS, members
from harnesspro.reports.rollout_frames import on_split, scored

VERDICTS = ("helped", "hurt", "no effect", "confounded", "unmeasured")


def _known_mean(costs: pd.Series) -> float:
    """Mean cost, or NaN (unknown; an empty CSV cell) when any cost is unknown."""
    return float(costs.mean()) if costs.notna().all() else math.nan


def candidate_latency(rollouts: pd.DataFrame, task_ids: Iterable[str], split: str) -> pd.DataFrame:
    """candidate_id, rollouts, pass_rate, cost_per_task (NaN = unknown), latency_s."""
    frame = scored(on_split(rollouts, split), task_ids).dropna(subset=["pass"])
    columns = ["candidate_id", "rollouts", "pass_rate", "cost_per_task", "latency_s"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    grouped = frame.groupby("candidate_id")
    table = pd.DataFrame(
        {
            "rollouts": grouped.size(),
            "pass_rate": grouped["pass"].mean(),
            # an unpriced model's cost is unknown for the whole candidate, never a partial sum
            "cost_per_task": grouped["cost"].agg(_known_mean),
            "latency_s": grouped["latency_s"].mean(),
        }
    )
    return table.reset_index()[columns]


def plan_levers(row: Mapping[Any, Any]) -> list[str]:
    """The levers one ledger plan touched: those a free plan names, else its catalog
    mechanism's, or each member's for a bundle (`a+b`) or a genome (several mechanisms,
    possibly on one lever: nsga2's), once each; "unknown" for any other name."""
    named = json.loads(str(row.get("levers") or "[]"))
    if named:
        return [str(lever) for lever in named]
    found = members(str(row.get("mechanism")))
    if not found:
        parts = [CATALOG.get(p) for p in str(row.get("mechanism")).split(BUNDLE_SEP)]
        found = tuple(m for m in parts if m is not None) if None not in parts else ()
    return list(dict.fromkeys(m.lever for m in found)) if found else ["unknown"]


def lever_coverage(plans: pd.DataFrame) -> pd.DataFrame:
    """lever, tried, then one column per verdict (plans without a child or a measurement are
    `unmeasured`); levers never tried are absent."""
    counts: dict[str, dict[str, int]] = {}
    for row in plans.to_dict("records"):
        verdict = row.get("verdict")
        verdict = verdict if isinstance(verdict, str) and verdict else "unmeasured"
        for lever in plan_levers(row):
            tally = counts.setdefault(lever, dict.fromkeys(("tried", *VERDICTS), 0))
            tally["tried"] += 1
            tally[verdict] += 1
    table = pd.DataFrame.from_dict(counts, orient="index", columns=["tried", *VERDICTS])
    return (
        table.rename_axis("lever")
        .reset_index()
        .sort_values(["tried", "lever"], ascending=[False, True])
    )


def with_untried(coverage: pd.DataFrame) -> pd.DataFrame:
    """The coverage plus every lever of the catalog's list never tried (all counts 0), after
    the tried ones: what the search left unexplored is visible too."""
    missing = [lever for lever in LEVERS if lever not in set(coverage["lever"])]
    untried = pd.DataFrame(
        [{"lever": lever, "tried": 0, **dict.fromkeys(VERDICTS, 0)} for lever in missing],
        columns=["lever", "tried", *VERDICTS],
    )
    frames = [f for f in (coverage, untried) if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else untried


def _change(plan: Mapping[Any, Any]) -> str:
    merged = str(plan.get("note") or "").startswith("composer")
    return f"{plan['mechanism']} (composer merge)" if merged else str(plan["mechanism"])


def latency_with_verdicts(
    rollouts: pd.DataFrame, plans: pd.DataFrame, task_ids: Iterable[str]
) -> pd.DataFrame:
    """`candidate_latency` on the coreset, with the change and verdict of the plan that made
    each candidate ("—" and "unmeasured" without one, e.g. the seed)."""
    table = candidate_latency(rollouts, task_ids, "coreset")
    made = {
        str(r["child_id"]): (_change(r), r.get("verdict"))
        for r in plans.to_dict("records")
        if isinstance(r.get("child_id"), str)
    }
    change = [made.get(str(c), ("—", None)) for c in table["candidate_id"]]
    return table.assign(
        change=[m for m, _ in change],
        verdict=[v if isinstance(v, str) else "unmeasured" for _, v in change],
    )


def describe(coverage: pd.DataFrame) -> str:
    """One line: the levers tried and in how many plans. No verdict: a stack's verdict is
    its own, not each member's (reports/lever_effects.py credits the levers)."""
    if coverage.empty:
        return "levers tried: none yet"
    parts = [f"{row['lever']} in {row['tried']}" for row in coverage.to_dict("records")]
    return "levers tried (plans touching each): " + ", ".join(parts)


def write_lever_reports(
    rollouts: pd.DataFrame, plans: pd.DataFrame, coreset: Iterable[str], folder: Path
) -> pd.DataFrame:
    """latency.csv (coreset) and levers.csv in `folder`; returns the lever coverage."""
    folder.mkdir(parents=True, exist_ok=True)
    latency = candidate_latency(rollouts, coreset, "coreset")
    coverage = lever_coverage(plans)
    for name, frame in (("latency.csv", latency), ("levers.csv", coverage)):
        temp = folder / f".{name}.tmp"
        frame.to_csv(temp, index=False)
        temp.replace(folder / name)
    return coverage
