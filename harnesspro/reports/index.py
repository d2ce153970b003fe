"""The cross-run index page: every run under a folder with its status, spend and operating
points, linking to each run's dashboard (written when missing)."""

from __future__ import annotations

import os
from html import escape
from pathlib import Path

import pandas as pd

from harnesspro.core.metrics import known_sum
from harnesspro.core.money import dollars, tokens
from harnesspro.reports.dashboard import STYLE, write_atomic, write_dashboard
from harnesspro.reports.rollout_frames import row_tokens, search_rollouts
from harnesspro.reports.rundata import RunData, load_run

MODE_RANK = {"lite": 0, "medium": 1, "heavy": 2}


def run_row(data: RunData) -> dict[str, str]:
    """One run's line in the index, as display strings."""
    search = search_rollouts(data.rollouts)
    spent = known_sum(search["cost"])
    improver = known_sum(data.search_calls["cost"])
    last = data.selections[data.selections["epoch"] == data.selections["epoch"].max()]
    last = last.sort_values("mode", key=lambda m: m.map(MODE_RANK).fillna(9))
    counted = known_sum(row_tokens(search))
    points = ", ".join(
        f"{r['mode']} {r['candidate_id']} ({r['pass_rate']:.0%}, "
        f"{dollars(None if pd.isna(r['cost']) else r['cost'])}/task)"
        for r in last.to_dict("records")
    )
    finished = len(data.epochs)
    return {
        "run": data.name,
        "status": data.meta.get("status", "running")
        + (f" (stopped early: {data.meta['stopped']})" if "stopped" in data.meta else ""),
        "epochs finished": str(finished),
        "target spend": f"{dollars(spent)} ({len(search):,} rollouts, {tokens(counted)})",
        "search spend": dollars(improver) if not data.search_calls.empty else "none",
        "operating points": points or "—",
    }


def run_dirs(folder: Path) -> list[Path]:
    """Sub-folders holding a ledger, by name."""
    return sorted(p for p in folder.iterdir() if (p / "ledger.sqlite").is_file())


def write_index(runs: Path, out: Path) -> Path:
    """`out` (dashboards/index.html): a table of every run under `runs`, each linked to its
    dashboard.html (written when the run has none yet)."""
    rows = []
    for root in run_dirs(runs):
        page = root / "dashboard.html"
        if not page.is_file():
            write_dashboard(root)
        row = run_row(load_run(root))
        link = os.path.relpath(page.resolve(), out.parent.resolve())
        row["run"] = f"<a href='{escape(link)}'>{escape(row['run'])}</a>"
        rows.append({k: v if k == "run" else escape(v) for k, v in row.items()})
    head = "".join(f"<th>{escape(c)}</th>" for c in (rows[0] if rows else {"run": ""}))
    body = "".join("<tr>" + "".join(f"<td>{v}</td>" for v in r.values()) + "</tr>" for r in rows)
    empty = "" if rows else f"<p>No run folder under {escape(str(runs))}.</p>"
    page_html = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>HarnessPro runs</title>"
        f"<style>{STYLE}</style></head><body><h1>HarnessPro runs</h1>"
        f"<table id='runs'><tr>{head}</tr>{body}</table>{empty}</body></html>"
    )
    return write_atomic(out, page_html)
