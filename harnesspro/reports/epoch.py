"""Per-epoch reports: Pareto-front figure, cost report, plans; rebuilt from the ledger."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harnesspro.metrics import cost_table
from harnesspro.reports.pareto_plot import draw_front, front_frame

if TYPE_CHECKING:
    from harnesspro.evolve import Evolution, Selected


def write_epoch_reports(evolution: Evolution, selected: Selected) -> None:
    """reports/epoch-N/{pareto.html, costs.csv, plans.csv}."""
    folder = evolution.run.reports(selected.epoch)
    folder.mkdir(parents=True, exist_ok=True)
    frame = front_frame(evolution.scores(), evolution.candidates(), selected.survivors, selected.picks)
    draw_front(frame, f"Pareto front after epoch {selected.epoch}", folder / "pareto.html")
    frame.to_csv(folder / "front.csv", index=False)
    rollouts = evolution.ledger.rollouts()
    cost_table(rollouts[rollouts["epoch"] == selected.epoch]).to_csv(folder / "costs.csv", index=False)
    plans = evolution.ledger.plans()
    plans[plans["epoch"] == selected.epoch].to_csv(folder / "plans.csv", index=False)
