"""Why each operating point was chosen, on which estimates (pure, over ledger frames).

The selection filters and minimises J_m on the surrogate's shrunk estimates when the
strategy chooses on them (reports/shrunk.csv holds them beside the raw ones), else on the raw
coreset means. A point chosen on shrunk estimates may be dominated on the raw ones the table
and plot show; `point_choices` says by which candidates, on both estimates, and why it won.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

MODE_ORDER = ("lite", "medium", "heavy")
Point = tuple[float, float]  # pass rate, cost per task


@dataclass(frozen=True)
class PointChoice:
    """One operating point: its raw and chosen-on estimates, who dominates it on each."""

    mode: str
    candidate: str
    estimates: str  # "shrunk" or "raw": what the selection compared
    raw: Point
    chosen_on: Point
    dominated_raw: tuple[str, ...]
    dominated_chosen: tuple[str, ...]
    weights: tuple[float, float]  # J_m's (alpha, beta)
    axis: str = "dollars"  # the cost axis: dollars, tokens or calls per task

    def cost(self, value: float) -> str:
        return f"${value:.4f}/task" if self.axis == "dollars" else f"{value:,.0f} {self.axis}/task"

    @property
    def why(self) -> str:
        """One sentence: on what, and why this point, and what the raw estimates say."""
        alpha, beta = self.weights
        raw = (
            f"; raw {self.raw[0]:.1%}, {self.cost(self.raw[1])}" if self.estimates != "raw" else ""
        )
        head = (
            f"{self.mode} {self.candidate}: chosen on {self.estimates} estimates "
            f"(pass {self.chosen_on[0]:.1%}, {self.cost(self.chosen_on[1])}{raw}) "
            f"as the lowest J_{self.mode} "
            f"(pass weight {alpha:g}, cost weight {beta:g}) among the survivors"
        )
        if self.dominated_raw and not self.dominated_chosen:
            return (
                f"{head}; on raw estimates it is dominated by {', '.join(self.dominated_raw)}, "
                f"on the {self.estimates} ones by none"
            )
        if self.dominated_raw:
            return f"{head}; dominated by {', '.join(self.dominated_raw)} on raw estimates"
        return f"{head}; on the raw front too"


def dominators(points: Mapping[str, Point], cid: str) -> tuple[str, ...]:
    """The candidates whose point is at least as good on both axes and better on one."""
    p, c = points[cid]
    return tuple(
        other
        for other, (q, d) in sorted(points.items())
        if other != cid and q >= p and d <= c and (q > p or d < c)
    )


def shrunk_points(shrunk: pd.DataFrame) -> dict[str, Point]:
    """reports/shrunk.csv as candidate -> (pass rate, cost) ({} when there is none)."""
    if shrunk.empty:
        return {}
    return {
        str(r["candidate_id"]): (float(r["shrunk_pass_rate"]), float(r["shrunk_cost_per_task"]))
        for r in shrunk.to_dict("records")
    }


def point_choices(
    picks: Mapping[str, str],
    raw: Mapping[str, Point],
    shrunk: Mapping[str, Point],
    weights: Mapping[str, tuple[float, float]],
    axis: str = "dollars",
) -> list[PointChoice]:
    """Each mode's pick explained; `shrunk` empty means the selection compared raw points."""
    chosen = {cid: shrunk.get(cid, point) for cid, point in raw.items()} if shrunk else raw
    out = []
    for mode in sorted(picks, key=lambda m: (MODE_ORDER + (m,)).index(m)):
        cid = picks[mode]
        if cid not in raw:
            continue
        out.append(
            PointChoice(
                mode, cid, "shrunk" if shrunk else "raw", raw[cid], chosen[cid],
                dominators(raw, cid), dominators(chosen, cid), weights.get(mode, (1.0, 1.0)), axis,
            )
        )  # fmt: skip
    return out
