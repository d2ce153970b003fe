"""Thin plotly drawings of the dashboard's frames (frames.py computes them)."""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from harnesspro.core.cost_axis import UNITS
from harnesspro.reports.pareto_plot import front_layout, front_traces

DIRECTIVE_COLOURS = {
    "seed": "#000000",
    "cost-first": "#009e73",
    "balanced": "#0072b2",
    "performance-first": "#cc79a7",
}
TOKEN_PARTS = {"uncached_input": "#4c72b0", "cached_input": "#8fb0dd", "output": "#dd8452"}
UNPRICED = "unknown (unpriced model, or no usage reported)"


def front_figure(front: pd.DataFrame, level: float) -> go.Figure:
    """Every epoch's front; a slider shows one epoch at a time (the last one first)."""
    fig = go.Figure()
    epochs = sorted(int(e) for e in front["view_epoch"].unique()) if not front.empty else []
    spans = []
    for epoch in epochs:
        traces = front_traces(front[front["view_epoch"] == epoch], level)
        start = len(fig.data)
        for trace in traces:
            trace.visible = epoch == epochs[-1]
            fig.add_trace(trace)
        spans.append((epoch, start, len(fig.data)))
    steps = [
        {
            "label": f"epoch {epoch}",
            "method": "update",
            "args": [{"visible": [start <= i < end for i in range(len(fig.data))]}],
        }
        for epoch, start, end in spans
    ]
    front_layout(fig, front, "Pareto front per epoch (coreset)", level)
    fig.update_layout(height=620)
    if not steps:  # the first epoch is still running: an empty front, no slider
        fig.add_annotation(
            text="no finished epoch yet", showarrow=False, xref="paper", yref="paper"
        )
        return fig
    slider = {
        "active": len(steps) - 1,
        "steps": steps,
        "currentvalue": {"prefix": "showing "},
        "pad": {"t": 60},
    }
    fig.update_layout(sliders=[slider])
    return fig


def hypervolume_figure(hv: pd.DataFrame) -> go.Figure:
    """Hypervolume per epoch, against the reference point fixed at epoch 0."""
    fig = go.Figure(go.Scatter(x=hv["epoch"], y=hv["hypervolume"], mode="lines+markers"))
    ref = hv["ref_cost"].iloc[0] if not hv.empty else None
    unit = UNITS[hv["axis"].iloc[0]] if not hv.empty else UNITS["dollars"]
    if ref is None or pd.isna(ref):
        where = "none yet"
    else:
        where = f"pass 0, ${ref:.4f}" if unit == UNITS["dollars"] else f"pass 0, {ref:,.1f} {unit}"
    fig.update_layout(
        title=f"Hypervolume per epoch (reference point fixed at epoch 0: {where})",
        xaxis={"title": "epoch", "dtick": 1},
        yaxis_title=f"hypervolume (pass rate x {unit})",
        height=380,
    )
    return fig


def lineage_figure(lineage: pd.DataFrame) -> go.Figure:
    """Candidates by epoch (x) and directive (row), an edge from each parent to its child.
    Each node carries its id in customdata: the page shows its details on click."""
    at = {str(r.candidate): (float(r.epoch), float(r.row)) for r in lineage.itertuples()}  # type: ignore[arg-type]
    xs: list[float | None] = []
    ys: list[float | None] = []
    for r in lineage.itertuples():
        if r.parent in at:
            parent = at[str(r.parent)]
            xs += [parent[0], at[str(r.candidate)][0], None]
            ys += [parent[1], at[str(r.candidate)][1], None]
    fig = go.Figure(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            name="parent → child",
            line={"color": "#bbbbbb"},
            hoverinfo="skip",
        )
    )
    for directive, group in lineage.groupby("directive", sort=False):
        fig.add_trace(
            go.Scatter(
                x=group["epoch"],
                y=group["row"],
                mode="markers+text",
                text=group["candidate"],
                textposition="middle right",
                customdata=group["candidate"],
                name=str(directive),
                marker={"size": 14, "color": DIRECTIVE_COLOURS.get(str(directive), "#777777")},
                hovertemplate="%{customdata}: "
                + group["mechanism"].astype(str)
                + "<br>click for diff and plan<extra></extra>",
            )
        )
    fig.update_layout(
        title="Lineage: candidates by epoch and directive (click a node)",
        xaxis={"title": "epoch", "dtick": 1},
        yaxis={"title": "candidate (by directive)", "showticklabels": False},
        showlegend=True,
        height=420,
    )
    return fig


def cost_figure(costs: pd.DataFrame) -> go.Figure:
    """Per epoch and account: token parts stacked (left), dollars (right)."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("tokens", "dollars"))
    labels = [
        f"{e} {a}" for e, a in zip(costs.get("epoch", []), costs.get("account", []), strict=True)
    ]
    for part, colour in TOKEN_PARTS.items():
        fig.add_trace(go.Bar(x=labels, y=costs.get(part, []), name=part, marker_color=colour), 1, 1)
    unknown = [pd.isna(t) for t in costs.get("tokens", [])]
    if any(unknown):  # a bar left out, named, rather than drawn as 0
        fig.add_trace(
            go.Bar(
                x=[x for x, u in zip(labels, unknown, strict=True) if u],
                y=[0] * sum(unknown),
                name="tokens unknown (no usage reported)",
                text=["unknown"] * sum(unknown),
                textposition="outside",
                hovertext=["tokens unknown"] * sum(unknown),
                hoverinfo="text",
                marker_color="#cccccc",
            ),
            1,
            1,
        )
    known = [None if pd.isna(d) else d for d in costs.get("dollars", [])]
    fig.add_trace(
        go.Bar(
            x=labels,
            y=known,
            name="dollars",
            marker_color="#55a868",
            text=["" if d is not None else "unknown" for d in known],
            textposition="outside",
        ),
        1,
        2,
    )
    searched = "search" in set(costs.get("account", []))
    fig.update_layout(
        title="Cost per epoch: target (harness rollouts) and search (improver calls) accounts"
        + ("" if searched else "<br><sub>no improver calls: the catalog improver is free</sub>"),
        barmode="stack",
        height=420,
    )
    fig.update_yaxes(title_text="$ (unknown = unpriced model or no usage reported)", row=1, col=2)
    return fig


def spend_figure(spend: pd.DataFrame) -> go.Figure:
    """Cumulative spend of each budget measure against its cap (dashed; none = uncapped)."""
    measures = ["rollouts", "target dollars", "improver dollars"]
    fig = make_subplots(rows=1, cols=3, subplot_titles=measures)
    for col, measure in enumerate(measures, start=1):
        part = spend[spend["measure"] == measure]
        values = [None if v is None or pd.isna(v) else v for v in part["spent"]]
        fig.add_trace(
            go.Scatter(x=part["epoch"], y=values, mode="lines+markers", name=f"{measure} spent"),
            1,
            col,
        )
        cap = part["cap"].iloc[0] if not part.empty else None
        if cap is not None and not (isinstance(cap, float) and math.isnan(cap)):
            fig.add_trace(
                go.Scatter(
                    x=part["epoch"],
                    y=[cap] * len(part),
                    mode="lines",
                    line={"dash": "dash", "color": "#c44e52"},
                    name=f"{measure} cap",
                ),
                1,
                col,
            )
        if part["spent"].isna().any():
            fig.add_annotation(
                text=UNPRICED, showarrow=False, row=1, col=col, x=0.5, y=0.5, xref="x domain"
            )
    fig.update_layout(title="Cumulative spend against every budget cap", height=380)
    fig.update_xaxes(title_text="epoch", dtick=1)
    return fig


def heatmap_figure(heat: pd.DataFrame) -> go.Figure:
    """Candidate x coreset task pass rates (frozen synthesized tests)."""
    fig = go.Figure(
        go.Heatmap(
            z=heat.to_numpy(),
            x=list(heat.columns),
            y=list(heat.index),
            zmin=0,
            zmax=1,
            colorscale="Blues",
            colorbar={"title": "pass"},
            hovertemplate="%{y} on %{x}: %{z:.0%}<extra></extra>",
        )
    )
    fig.update_layout(
        title="Per-task pass rate (candidate x coreset task)",
        height=max(320, 28 * len(heat.index) + 160),
        yaxis={"autorange": "reversed"},
    )
    return fig
