"""Per-epoch reports: Pareto-front figure, cost report, plans; rebuilt from the ledger."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harnesspro.metrics import cost_table
from harnesspro.reports.pareto_plot import draw_front, front_frame

if TYPE_CHECKING:
    from harnesspro.context import RunContext
    from harnesspro.selection import Selected


def write_epoch_reports(ctx: RunContext, selected: Selected) -> None:
    """reports/epoch-N/{pareto.html, front.csv, costs.csv, plans.csv}."""
    folder = ctx.run.reports(selected.epoch)
    folder.mkdir(parents=True, exist_ok=True)
    frame = front_frame(ctx.scores(), ctx.candidates(), selected.survivors, selected.picks)
    draw_front(frame, f"Pareto front after epoch {selected.epoch}", folder / "pareto.html")
    frame.to_csv(folder / "front.csv", index=False)
    rollouts = ctx.ledger.rollouts()
    epoch_rollouts = rollouts[rollouts["epoch"] == selected.epoch]
    cost_table(epoch_rollouts).to_csv(folder / "costs.csv", index=False)
    plans = ctx.ledger.plans()
    plans[plans["epoch"] == selected.epoch].to_csv(folder / "plans.csv", index=False)
