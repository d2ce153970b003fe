"""The decision report drawn: printable lines (`harnesspro report`, the end of a run) and the
dashboard's HTML tables. Data comes from reports/decision.py; nothing is computed here."""

from __future__ import annotations

import math
from html import escape
from typing import Any

import pandas as pd

from harnesspro.core.money import dollars
from harnesspro.reports.decision import DecisionReport


def _pct(x: object) -> str:
    return "—" if not isinstance(x, int | float) or math.isnan(x) else f"{x:.1%}"


def _money(x: float) -> str:
    return "none solved" if math.isinf(x) else dollars(x)


def curve_lines(report: DecisionReport) -> list[str]:
    """One line per harness: pass@k and pass^k for k = 1..K."""
    lines = []
    for (label, cid), rows in report.curves.groupby(["harness", "candidate"], sort=False):
        at = " ".join(f"@{r.k} {_pct(r.pass_at_k)}" for r in rows.itertuples())
        every = " ".join(f"^{r.k} {_pct(r.pass_all_k)}" for r in rows.itertuples())
        lines.append(f"  {label} ({cid}): pass{at}; pass{every}")
    return lines


def strata_lines(report: DecisionReport) -> list[str]:
    lines = []
    for (label, cid), rows in report.strata.groupby(["harness", "candidate"], sort=False):
        parts = [f"{r.stratum} {_pct(r.pass_rate)} of {r.tasks}" for r in rows.itertuples()]
        lines.append(f"  {label} ({cid}): " + ", ".join(parts))
    lost = report.regressions
    if lost.empty:
        lines.append("  regressions on tasks the seed solved: none")
    for r in lost.itertuples():
        lines.append(f"  regression: {r.harness} ({r.candidate}) {r.task} {_pct(r.pass_rate)}")
    return lines


def usage_lines(report: DecisionReport) -> list[str]:
    return [
        f"  {r['harness']} ({r['candidate']}): {_money(float(r['cost_per_solved']))} per solved "
        f"task ({r['solved']} of {r['rollouts']} rollouts), {r['tool_calls_per_task']:.1f} tool "
        f"calls per task, tool errors {_pct(r['tool_error_rate'])} of calls"
        for r in _records(report.usage)
    ]


def optimism_lines(report: DecisionReport) -> list[str]:
    return [
        f"  {r['harness']} ({r['candidate']}): chosen on {_pct(r['chosen_on_pass'])}, coreset "
        f"{_pct(r['coreset_pass'])}, held-out {_pct(r['heldout_pass'])} (optimism "
        f"{float(r['optimism']) * 100:+.1f} points)"
        for r in _records(report.optimism)
    ]


def gain_lines(report: DecisionReport) -> list[str]:
    gain = report.search_gain
    if gain.empty:
        return []
    rows = _records(gain)
    first = rows[0]
    improver = first["search_improver_dollars"]
    head = (
        f"  search cost {dollars(first['search_dollars'])} (target rollouts "
        f"{dollars(first['search_target_dollars'])}, improver "
        + ("nothing spent" if improver == 0 else dollars(improver))
        + ")"
    )
    per = [
        f"  {r['harness']} ({r['candidate']}): {r['gain_points']:+.1f} points held-out, "
        + (
            "no gain to price"
            if math.isnan(r["dollars_per_point"])
            else f"{dollars(r['dollars_per_point'])} of search per point"
        )
        for r in rows
    ]
    return [head, *per]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in r.items()} for r in frame.to_dict("records")]


def decision_lines(report: DecisionReport) -> list[str]:
    """The whole decision report as printable lines."""
    k, n = report.attempts, report.tasks
    return [
        f"held-out pass@k and pass^k (all k attempts pass), {n} tasks x K = {k}:",
        *curve_lines(report),
        "held-out tasks by the seed's difficulty (pass rate of each harness on them):",
        *strata_lines(report),
        "cost per solved task and tool use (held-out):",
        *usage_lines(report),
        *_section("search-time vs held-out score (selection optimism):", optimism_lines(report)),
        *_section("search cost vs the gain it bought:", gain_lines(report)),
    ]


def _section(title: str, lines: list[str]) -> list[str]:
    """A titled block, or nothing when it has no line (a transfer has no search)."""
    return [title, *lines] if lines else []


def _table(frame: pd.DataFrame, element_id: str) -> str:
    head = "".join(f"<th>{escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(_cell(v))}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    return f'<table id="{element_id}"><tr>{head}</tr>{body}</table>'


def _cell(value: object) -> str:
    if isinstance(value, float):
        return "—" if math.isnan(value) else "inf" if math.isinf(value) else f"{value:.4g}"
    return str(value)


def _wide(report: DecisionReport) -> dict[str, pd.DataFrame]:
    """The curves and strata one row per harness (a column per k, per stratum) to read across."""
    out = {}
    curves: dict[tuple[str, str], dict[str, str]] = {}
    for r in _records(report.curves):
        row = curves.setdefault((r["harness"], r["candidate"]), {})
        row[f"pass@{r['k']}"], row[f"pass^{r['k']}"] = _pct(r["pass_at_k"]), _pct(r["pass_all_k"])
    if curves:
        out["pass_curves"] = _rows(curves)
    strata: dict[tuple[str, str], dict[str, str]] = {}
    for r in _records(report.strata):
        cells = strata.setdefault((r["harness"], r["candidate"]), {})
        cells[r["stratum"]] = f"{_pct(r['pass_rate'])} of {r['tasks']}"
    if strata:
        out["strata"] = _rows(strata).fillna("—")
    return out


def _rows(table: dict[tuple[str, str], dict[str, str]]) -> pd.DataFrame:
    return pd.DataFrame([{"harness": h, "candidate": c, **v} for (h, c), v in table.items()])


def decision_html(report: DecisionReport | None) -> str:
    """The dashboard's section: each table of the decision report."""
    if report is None:
        return '<p id="decision">No held-out evaluation yet (`harnesspro eval RUN`).</p>'
    captions = {
        "pass_curves": "pass@k and pass^k (all k attempts pass) on the held-out attempts",
        "strata": "held-out tasks by the seed's difficulty",
        "regressions": "regressions: tasks the seed solved that a point fails",
        "usage": "cost per solved task, tool calls per task, tool errors per call",
        "optimism": "search-time (chosen-on, coreset) vs held-out pass rate",
        "search_gain": "search cost beside the held-out gain it bought",
    }
    parts = []
    for name, table in {**report.tables(), **_wide(report)}.items():
        parts.append(f"<h3>{escape(captions[name])}</h3>")
        parts.append(_table(table, f"decision-{name}") if not table.empty else "<p>none</p>")
    return "".join(parts)
