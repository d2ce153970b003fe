"""Per-epoch reports: Pareto-front figure, front with intervals and validation aggregates,
cost report, plans; rebuilt from the ledger."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from harnesspro.reports.costs import epoch_costs, write_csv
from harnesspro.reports.pareto_plot import draw_front, front_frame

if TYPE_CHECKING:
    from harnesspro.context import RunContext
    from harnesspro.records import Score
    from harnesspro.selection import Selected
    from harnesspro.uncertainty import Uncertainty


def write_epoch_reports(
    ctx: RunContext,
    selected: Selected,
    intervals: Mapping[str, Uncertainty] | None = None,
    validation: Mapping[str, Score] | None = None,
) -> None:
    """reports/epoch-N/{pareto.html, front.csv, costs.csv, plans.csv}."""
    from harnesspro.context import SEED_ID

    folder = ctx.run.reports(selected.epoch)
    folder.mkdir(parents=True, exist_ok=True)
    frame = front_frame(
        ctx.scores(), ctx.candidates(), selected.picks, SEED_ID, intervals, validation
    )
    level = ctx.config.evaluation.confidence
    draw_front(frame, f"Pareto front after epoch {selected.epoch}", folder / "pareto.html", level)
    frame.to_csv(folder / "front.csv", index=False)
    rollouts = ctx.ledger.rollouts()
    write_csv(epoch_costs(rollouts, selected.epoch, SEED_ID), folder / "costs.csv")
    plans = ctx.ledger.plans()
    plans[plans["epoch"] == selected.epoch].to_csv(folder / "plans.csv", index=False)
