"""The Pareto-front figure: data first (a frame), then a thin plotly drawing."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from harnesspro.atomic import atomic_path
from harnesspro.records import Candidate, Score
from harnesspro.uncertainty import Uncertainty

NAN = float("nan")


def front_frame(
    scores: Mapping[str, Score],
    candidates: Mapping[str, Candidate],
    survivors: set[str],
    picks: Mapping[str, str],
    intervals: Mapping[str, Uncertainty] | None = None,
    validation: Mapping[str, Score] | None = None,
) -> pd.DataFrame:
    """One row per scored candidate with its role on the front, its bootstrap intervals and
    its validation aggregates (NaN where there are none)."""
    rows = []
    for cid, s in sorted(scores.items()):
        c = candidates[cid]
        modes = [mode for mode, picked in picks.items() if picked == cid]
        u = (intervals or {}).get(cid)
        v = (validation or {}).get(cid)
        rows.append(
            {
                "candidate": cid,
                "pass_rate": s.pass_rate,
                "pass_lo": u.pass_rate_ci[0] if u else NAN,
                "pass_hi": u.pass_rate_ci[1] if u else NAN,
                "cost_per_task": s.cost_per_task,
                "cost_lo": u.cost_ci[0] if u else NAN,
                "cost_hi": u.cost_ci[1] if u else NAN,
                "p_nondominated": u.p_nondominated if u else NAN,
                "val_pass_rate": v.pass_rate if v else NAN,
                "val_cost_per_task": v.cost_per_task if v else NAN,
                "val_rollouts": v.n_rollouts if v else 0,
                "mechanism": c.mechanism or "seed",
                "directive": c.directive or "seed",
                "epoch": c.epoch,
                "survivor": cid in survivors,
                "modes": "/".join(modes),
            }
        )
    return pd.DataFrame(rows)


def _known(x: float) -> bool:
    return not math.isnan(x)


def hover_text(row: pd.Series, level: float) -> str:
    """What a point shows on hover: estimates with their intervals, then validation."""
    ci = f"{level:.0%} CI"
    lines = [
        f"<b>{row['candidate']}</b> {row['modes']}".strip(),
        f"{row['mechanism']} ({row['directive']}, epoch {row['epoch']})",
        f"pass {row['pass_rate']:.1%}"
        + (f" [{row['pass_lo']:.1%}, {row['pass_hi']:.1%}] {ci}" if _known(row["pass_lo"]) else ""),
        f"${row['cost_per_task']:.4f}/task"
        + (f" [{row['cost_lo']:.4f}, {row['cost_hi']:.4f}]" if _known(row["cost_lo"]) else ""),
    ]
    if _known(row["p_nondominated"]):
        lines.append(f"P(non-dominated) {row['p_nondominated']:.2f}")
    if _known(row["val_pass_rate"]):
        lines.append(
            f"validation pass {row['val_pass_rate']:.1%}, ${row['val_cost_per_task']:.4f}/task "
            f"({row['val_rollouts']} rollouts)"
        )
    return "<br>".join(lines)


def _error_bars(group: pd.DataFrame, value: str, lo: str, hi: str) -> dict[str, object]:
    return {
        "type": "data",
        "symmetric": False,
        "array": (group[hi] - group[value]).fillna(0).clip(lower=0),
        "arrayminus": (group[value] - group[lo]).fillna(0).clip(lower=0),
        "thickness": 1,
        "width": 3,
    }


def draw_front(frame: pd.DataFrame, title: str, path: Path, level: float = 0.9) -> Path:
    """Write a self-contained HTML figure (plotly.js inlined, opens offline); error bars are
    the bootstrap intervals."""
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
                error_x=_error_bars(group, "cost_per_task", "cost_lo", "cost_hi"),
                error_y=_error_bars(group, "pass_rate", "pass_lo", "pass_hi"),
                hovertext=[hover_text(row, level) for _, row in group.iterrows()],
                hovertemplate="%{hovertext}<extra></extra>",
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
    with atomic_path(path) as tmp:
        fig.write_html(tmp, include_plotlyjs=True, full_html=True)
    return path
