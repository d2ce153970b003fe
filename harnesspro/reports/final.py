"""The held-out evaluation report: reports/final.json, reports/final.csv and a printed table."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path

import pandas as pd
from rich.table import Table

from harnesspro.core.atomic import atomic_path, write_text_atomic
from harnesspro.core.money import dollars, tokens
from harnesspro.evaluation.heldout import FinalReport


def _clean(value: object) -> object:
    """NaN -> None, so final.json stays valid JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def final_frame(report: FinalReport) -> pd.DataFrame:
    """One row per harness, intervals split into low/high columns."""
    rows = []
    for h in report.harnesses:
        row = asdict(h)
        row["pass_lo"], row["pass_hi"] = row.pop("pass_rate_ci")
        row["cost_lo"], row["cost_hi"] = row.pop("cost_ci")
        rows.append({**row, "attempts": report.attempts, "band": report.band.whole_split})
    return pd.DataFrame(rows)


def write_final(report: FinalReport, folder: Path) -> tuple[Path, Path]:
    """reports/final.json and reports/final.csv."""
    folder.mkdir(parents=True, exist_ok=True)
    as_json, as_csv = folder / "final.json", folder / "final.csv"
    write_text_atomic(as_json, json.dumps(_clean(asdict(report)), indent=2) + "\n")
    with atomic_path(as_csv) as tmp:
        final_frame(report).to_csv(tmp, index=False)
    return as_json, as_csv


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.1%}"


def _gain(g: float | None) -> str:
    return "n/a" if g is None or math.isnan(g) else f"{g:+.3f}"


def _ci(lo: float, hi: float) -> str:
    if math.isnan(lo):
        return "n/a"
    return f"{lo * 100:.0f}-{hi * 100:.0f}%"


def final_table(report: FinalReport) -> Table:
    """Seed and operating points side by side on the test split (fits 80 columns)."""
    k = report.attempts
    table = Table(
        title=f"held-out test split: {len(report.tasks)} tasks x K = {k} attempts",
        box=None,
        padding=(0, 1),
        pad_edge=False,
        header_style="bold",
    )
    headers = ["harness", "cand", "pass", f"{report.confidence:.0%} CI", f"pass@{k}"]
    for column in [*headers, "$/task", "tokens", "lat s", "g", "vs seed"]:
        table.add_column(column)
    for h in report.harnesses:
        table.add_row(
            h.harness,
            h.candidate_id,
            _pct(h.pass_rate),
            _ci(*h.pass_rate_ci),
            _pct(h.pass_at_k),
            dollars(h.cost_per_task),
            tokens(h.tokens_per_task).removesuffix(" tokens"),
            f"{h.latency_s:.2f}",
            _gain(h.gain),
            h.versus_seed,
        )
    return table


def band_line(report: FinalReport) -> str:
    """The resolution band, in pass-rate points and in units of g."""
    b = report.band
    return (
        f"resolution band: {_pct(b.whole_split)} of pass rate (g {_gain(report.band_gain)}), "
        f"the median whole-split discrepancy over {b.deals} deals of the seed's "
        f"{2 * report.attempts} attempts per task into two {report.attempts}-attempt scorings "
        f"(attempts 0-{report.attempts - 1} vs {report.attempts}-{2 * report.attempts - 1}: "
        f"{_pct(b.first_gap)} whole split, median per-task discrepancy {_pct(b.per_task)}); "
        "differences inside the band are ties."
    )


def incomplete_line(report: FinalReport) -> str:
    """The harnesses left out of the figures and what each misses ('' when none)."""
    if not report.incomplete:
        return ""
    label = {h.candidate_id: h.harness for h in report.harnesses}
    parts = [f"{label[s.candidate_id]} {s.describe()}" for s in report.incomplete]
    return (
        "incomplete, left out of the figures (test task x attempts without an official "
        f"verdict): {'; '.join(parts)}"
    )
