"""Per-epoch reports: Pareto-front figure, front with intervals and validation aggregates,
cost report, plans; rebuilt from the ledger."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from harnesspro.core.atomic import atomic_path
from harnesspro.reports.costs import epoch_costs, write_csv
from harnesspro.reports.pareto_plot import draw_front, front_frame
from harnesspro.run.context import SEED_ID

if TYPE_CHECKING:
    from harnesspro.core.records import Score
    from harnesspro.core.uncertainty import Uncertainty
    from harnesspro.evaluation.selection.select import Selected
    from harnesspro.run.context import RunContext


def write_epoch_reports(
    ctx: RunContext,
    selected: Selected,
    intervals: Mapping[str, Uncertainty] | None = None,
    validation: Mapping[str, Score] | None = None,
) -> None:
    """reports/epoch-N/{pareto.html, front.csv, costs.csv, plans.csv}."""

    folder = ctx.run.reports(selected.epoch)
    folder.mkdir(parents=True, exist_ok=True)
    frame = front_frame(
        ctx.scores(), ctx.candidates(), selected.picks, SEED_ID, intervals, validation
    )
    level = ctx.config.evaluation.confidence
    draw_front(frame, f"Pareto front after epoch {selected.epoch}", folder / "pareto.html", level)
    with atomic_path(folder / "front.csv") as tmp:
        frame.to_csv(tmp, index=False)
    rollouts = ctx.ledger.rollouts()
    with atomic_path(folder / "costs.csv") as tmp:
        write_csv(epoch_costs(rollouts, selected.epoch, SEED_ID), tmp)
    plans = ctx.ledger.plans()
    with atomic_path(folder / "plans.csv") as tmp:
        plans[plans["epoch"] == selected.epoch].to_csv(tmp, index=False)
