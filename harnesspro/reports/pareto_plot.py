"""The Pareto-front figure: data first (a frame), then a thin plotly drawing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from harnesspro.records import Candidate, Score


def front_frame(
    scores: Mapping[str, Score],
    candidates: Mapping[str, Candidate],
    survivors: set[str],
    picks: Mapping[str, str],
) -> pd.DataFrame:
    """One row per scored candidate with its role on the front."""
    rows = []
    for cid, s in sorted(scores.items()):
        c = candidates[cid]
        modes = [mode for mode, picked in picks.items() if picked == cid]
        rows.append(
            {
                "candidate": cid,
                "pass_rate": s.pass_rate,
                "cost_per_task": s.cost_per_task,
                "mechanism": c.mechanism or "seed",
                "directive": c.directive or "seed",
                "epoch": c.epoch,
                "survivor": cid in survivors,
                "modes": "/".join(modes),
            }
        )
    return pd.DataFrame(rows)


HOVER = (
    "%{text}<br>%{customdata[0]} (%{customdata[1]}, epoch %{customdata[2]})"
    "<br>pass %{y:.1%} at $%{x:.4f}/task<extra></extra>"
)


def draw_front(frame: pd.DataFrame, title: str, path: Path) -> Path:
    """Write a self-contained HTML figure (plotly.js inlined, opens offline)."""
    fig = go.Figure()
    for survivor, group in frame.groupby("survivor"):
        fig.add_trace(
            go.Scatter(
                x=group["cost_per_task"],
                y=group["pass_rate"],
                mode="markers+text",
                text=[
                    f"{c} {m}".strip()
                    for c, m in zip(group["candidate"], group["modes"], strict=True)
                ],
                textposition="top center",
                name="front (survivors)" if survivor else "filtered",
                marker={"size": 12 if survivor else 8, "opacity": 1.0 if survivor else 0.5},
                customdata=group[["mechanism", "directive", "epoch"]],
                hovertemplate=HOVER,
            )
        )
    front = frame[frame["survivor"]].sort_values("cost_per_task")
    fig.add_trace(
        go.Scatter(
            x=front["cost_per_task"],
            y=front["pass_rate"],
            mode="lines",
            name="Pareto front",
            line={"dash": "dot"},
        )
    )
    fig.update_layout(
        title=title,
        xaxis_title="cost per task ($)",
        yaxis_title="pass rate",
        yaxis_tickformat=".0%",
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.write_html(path, include_plotlyjs=True, full_html=True)
    return path
