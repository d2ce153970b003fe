"""The reports a user decides from, computed from a finished run's ledger and its held-out
evaluation (reports/final.json): pass@k / pass^k curves, difficulty strata and regressions,
cost per solved task and tool use, search-time vs held-out score, search cost vs gain.

`decision_report` gathers them (reading trajectories for tool counts is its only I/O beyond
the snapshot), `write_decision` writes reports/decision.json, `decision_lines` prints them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harnesspro.core.atomic import write_text_atomic
from harnesspro.core.ledger import rows_of
from harnesspro.core.metrics import candidate_scores
from harnesspro.reports import optimism, passk, strata, usage
from harnesspro.reports.choice import shrunk_points
from harnesspro.reports.rollout_frames import held_out_frame
from harnesspro.reports.rundata import RunData

DECISION_REPORT = "decision.json"
SEED_ID = "c000"


@dataclass(frozen=True)
class DecisionReport:
    """Each table of the decision report, one row per harness (and k, stratum, task)."""

    attempts: int
    tasks: int
    curves: pd.DataFrame
    strata: pd.DataFrame
    regressions: pd.DataFrame
    usage: pd.DataFrame
    optimism: pd.DataFrame
    search_gain: pd.DataFrame

    def tables(self) -> dict[str, pd.DataFrame]:
        return {
            "pass_curves": self.curves,
            "strata": self.strata,
            "regressions": self.regressions,
            "usage": self.usage,
            "optimism": self.optimism,
            "search_gain": self.search_gain,
        }


def chosen_on(data: RunData) -> dict[str, float]:
    """Candidate -> the pass rate the last epoch's selection compared: the shrunk estimate
    when it chose on them (reports/shrunk.csv), else the raw one it recorded."""
    sel = data.selections
    if sel.empty:
        return {}
    last = sel[sel["epoch"] == sel["epoch"].max()]
    raw = {str(r.candidate_id): float(r.pass_rate) for r in last.itertuples()}
    shrunk = {c: p for c, (p, _) in shrunk_points(data.shrunk).items()}
    return {c: shrunk.get(c, p) for c, p in raw.items()}


def decision_report(data: RunData) -> DecisionReport | None:
    """The decision report of a run with a held-out evaluation (None without one)."""
    if not data.final or not data.final.get("harnesses"):
        return None
    k = int(data.final["attempts"])
    rows = data.final["harnesses"]
    harnesses = [(str(h["harness"]), str(h["candidate_id"])) for h in rows]
    frame = held_out_frame(data.rollouts, data.final["tasks"])
    frame = frame[frame["attempt"] < k]  # the seed's second K attempts only measure the band
    counted = usage.load_tool_counts(data.root, frame)
    coreset = candidate_scores(rows_of(data.rollouts), data.coreset)
    spend = optimism.search_spend(data.rollouts, data.search_calls)
    searched = bool(coreset)  # a transfer folder holds held-out rollouts only: no search
    rows_searched = rows if searched else []
    return DecisionReport(
        attempts=k,
        tasks=len(data.final["tasks"]),
        curves=passk.curves(frame, harnesses),
        strata=strata.by_stratum(frame, harnesses, SEED_ID),
        regressions=strata.regressions(frame, harnesses, SEED_ID),
        usage=usage.usage(counted, harnesses),
        optimism=optimism.optimism(rows_searched, chosen_on(data), coreset),
        search_gain=optimism.search_gain(rows_searched, spend),
    )


def _json_value(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else "inf"
    return value.item() if hasattr(value, "item") else value


def as_json(report: DecisionReport) -> dict[str, object]:
    """JSON-ready: each table as a list of records; NaN -> null, infinity -> "inf"."""
    out: dict[str, object] = {"attempts": report.attempts, "tasks": report.tasks}
    for name, table in report.tables().items():
        out[name] = [
            {str(k): _json_value(v) for k, v in row.items()} for row in table.to_dict("records")
        ]
    return out


def write_decision(report: DecisionReport, folder: Path) -> Path:
    """reports/decision.json."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / DECISION_REPORT
    write_text_atomic(path, json.dumps(as_json(report), indent=2) + "\n")
    return path
