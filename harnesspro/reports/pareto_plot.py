"""The Pareto-front figure: data first (a frame), then a thin plotly drawing.

Each candidate has one role with one colour in every epoch's figure: a survivor (on the
filtered front), below the seed's pass rate, or dominated. The seed is a star; lite/medium/
heavy are ringed and labelled; every other point is named on hover and in the side table, so
labels never pile up. The front is a step line: between two front points only the cheaper
one's pass rate is reachable. When any cost is unknown (an unpriced model) the x axis is
tokens per task for every candidate, or model calls per task when token counts are unknown
too (`harnesspro.core.cost_axis`), and says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from harnesspro.core import pareto
from harnesspro.core.atomic import atomic_path
from harnesspro.core.cost_axis import TITLES, axis_of, value_on
from harnesspro.core.money import dollars, tokens
from harnesspro.core.records import Candidate, Score
from harnesspro.core.uncertainty import Uncertainty

NAN = float("nan")
ROLES = ("survivor", "below seed", "dominated")
ROLE_COLOURS = {"survivor": "#1f77b4", "below seed": "#9e9e9e", "dominated": "#e69f00"}
MODE_ORDER = ("lite", "medium", "heavy")
DOLLAR_AXIS = TITLES["dollars"]
TOKEN_AXIS = TITLES["tokens"]
CALL_AXIS = TITLES["calls"]


def roles(frame: pd.DataFrame, seed_id: str) -> list[str]:
    """Each row's role, by the same filter the selection applies (pareto.survivors)."""
    if frame.empty or seed_id not in set(frame["candidate"]):
        return ["survivor"] * len(frame)
    seed_pr = float(frame.loc[frame["candidate"] == seed_id, "pass_rate"].iloc[0])
    kept = set(pareto.survivors(frame["pass_rate"], frame["x"], seed_pr).tolist())
    below = frame["pass_rate"] < seed_pr - pareto.SEED_TOLERANCE
    return [
        "survivor" if i in kept else "below seed" if below.iloc[i] else "dominated"
        for i in range(len(frame))
    ]


def front_frame(
    scores: Mapping[str, Score],
    candidates: Mapping[str, Candidate],
    picks: Mapping[str, str],
    seed_id: str,
    intervals: Mapping[str, Uncertainty] | None = None,
    validation: Mapping[str, Score] | None = None,
) -> pd.DataFrame:
    """One row per scored candidate: its scores, the plotted x (dollars or tokens per task,
    see `axis`), its role, the modes that picked it, its bootstrap intervals and validation
    aggregates (NaN where there are none)."""
    axis = axis_of(scores)
    rows = []
    for cid, s in sorted(scores.items()):
        c = candidates[cid]
        u = (intervals or {}).get(cid)
        v = (validation or {}).get(cid)
        dollar = axis == "dollars"
        rows.append(
            {
                "candidate": cid,
                "pass_rate": s.pass_rate,
                "pass_lo": u.pass_rate_ci[0] if u else NAN,
                "pass_hi": u.pass_rate_ci[1] if u else NAN,
                "cost_per_task": s.cost_per_task,
                "cost_lo": u.cost_ci[0] if u else NAN,
                "cost_hi": u.cost_ci[1] if u else NAN,
                "tokens_per_task": s.tokens_per_task,
                "calls_per_task": s.calls_per_task,
                "axis": axis,
                "x": value_on(s, axis),
                "x_lo": (u.cost_ci[0] if u else NAN) if dollar else NAN,
                "x_hi": (u.cost_ci[1] if u else NAN) if dollar else NAN,
                "p_nondominated": u.p_nondominated if u else NAN,
                "val_pass_rate": v.pass_rate if v else NAN,
                "val_cost_per_task": v.cost_per_task if v else NAN,
                "val_rollouts": v.n_rollouts if v else 0,
                "mechanism": c.mechanism or "seed",
                "directive": c.directive or "seed",
                "epoch": c.epoch,
                "seed": cid == seed_id,
                "modes": "/".join(m for m in MODE_ORDER if picks.get(m) == cid),
            }
        )
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame["role"] = roles(frame, seed_id)
        frame["survivor"] = frame["role"] == "survivor"
    return frame


def _known(x: float) -> bool:
    return not math.isnan(x)


def hover_text(row: pd.Series, level: float) -> str:
    """What a point shows on hover: role, estimates with their intervals, then validation."""
    ci = f"{level:.0%} CI"
    cost = f"{dollars(row['cost_per_task'])}/task" + (
        f" [{row['cost_lo']:.4f}, {row['cost_hi']:.4f}]" if _known(row["cost_lo"]) else ""
    )
    lines = [
        f"<b>{row['candidate']}</b> {row['modes']}".strip() + f" ({row['role']})",
        f"{row['mechanism']} ({row['directive']}, epoch {row['epoch']})",
        f"pass {row['pass_rate']:.1%}"
        + (f" [{row['pass_lo']:.1%}, {row['pass_hi']:.1%}] {ci}" if _known(row["pass_lo"]) else ""),
        cost,
        f"{tokens(row['tokens_per_task'])}/task, {row['calls_per_task']:.1f} model calls/task",
    ]
    if _known(row["p_nondominated"]):
        lines.append(f"P(non-dominated) {row['p_nondominated']:.2f}")
    if isinstance(row.get("chosen"), str) and row["chosen"]:
        lines.append(str(row["chosen"]))  # why an operating point was chosen, on what
    if _known(row["val_pass_rate"]):
        lines.append(
            f"validation pass {row['val_pass_rate']:.1%}, "
            f"{dollars(row['val_cost_per_task'])}/task ({row['val_rollouts']} rollouts)"
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


def role_trace(group: pd.DataFrame, role: str, level: float, show_legend: bool) -> go.Scatter:
    """The candidates of one role, with their error bars and hover text."""
    bars = len(group) > 0
    return go.Scatter(
        x=group.get("x", []),
        y=group.get("pass_rate", []),
        mode="markers",
        name=role,
        legendgroup=role,
        showlegend=show_legend,
        marker={"size": 11 if role == "survivor" else 8, "color": ROLE_COLOURS[role]},
        error_x=_error_bars(group, "x", "x_lo", "x_hi") if bars else None,
        error_y=_error_bars(group, "pass_rate", "pass_lo", "pass_hi") if bars else None,
        hovertext=[hover_text(row, level) for _, row in group.iterrows()],
        hovertemplate="%{hovertext}<extra></extra>",
    )


def overlay_traces(frame: pd.DataFrame, show_legend: bool) -> list[go.Scatter]:
    """The seed's star, rings around the picks, and the front's step line."""
    seed = frame[frame["seed"]] if not frame.empty else frame
    picked = frame[frame["modes"] != ""] if not frame.empty else frame
    front = frame[frame["survivor"]].sort_values("x") if not frame.empty else frame
    ring = {"symbol": "circle-open", "size": 22, "color": "#d62728", "line": {"width": 2}}
    return [
        go.Scatter(
            x=seed.get("x", []),
            y=seed.get("pass_rate", []),
            mode="markers",
            name="seed (H0)",
            showlegend=show_legend,
            marker={"symbol": "star", "size": 18, "color": "rgba(0,0,0,0)", "line": {"width": 2}},
            hoverinfo="skip",
        ),
        go.Scatter(
            x=picked.get("x", []),
            y=picked.get("pass_rate", []),
            mode="markers+text",
            text=list(picked.get("modes", [])),
            textposition="bottom right",
            name="lite / medium / heavy",
            showlegend=show_legend,
            marker=ring,
            hoverinfo="skip",
        ),
        go.Scatter(
            x=front.get("x", []),
            y=front.get("pass_rate", []),
            mode="lines",
            line_shape="hv",
            name="Pareto front (step)",
            showlegend=show_legend,
            line={"dash": "dot", "color": ROLE_COLOURS["survivor"]},
            hoverinfo="skip",
        ),
    ]


def front_traces(frame: pd.DataFrame, level: float, show_legend: bool = True) -> list[go.Scatter]:
    """The traces of one front: one per role (stable colours), the seed, the picks, the step
    line. Empty roles still get a trace so the legend is the same in every epoch."""
    roles = [
        role_trace(frame[frame["role"] == role] if not frame.empty else frame, role, level,
                   show_legend)
        for role in ROLES
    ]  # fmt: skip
    return [*roles, *overlay_traces(frame, show_legend)]


def x_title(frame: pd.DataFrame) -> str:
    """The x axis says which quantity it shows."""
    if frame.empty:
        return DOLLAR_AXIS
    return TITLES[frame["axis"].iloc[0]]


def front_layout(fig: go.Figure, frame: pd.DataFrame, title: str, level: float) -> None:
    fig.update_layout(
        title=title,
        xaxis_title=x_title(frame),
        yaxis_title="pass rate (coreset, frozen tests)",
        yaxis={"tickformat": ".0%", "range": [-0.05, 1.05]},
        xaxis={"rangemode": "tozero"},
        legend_title_text=f"whiskers: {level:.0%} bootstrap CI",
    )


def draw_front(frame: pd.DataFrame, title: str, path: Path, level: float = 0.9) -> Path:
    """Write a self-contained HTML figure (plotly.js inlined, opens offline)."""
    fig = go.Figure(front_traces(frame, level))
    front_layout(fig, frame, title, level)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        fig.write_html(tmp, include_plotlyjs=True, full_html=True)
    return path
