"""Per-epoch reports: Pareto-front figure, front with intervals and validation aggregates,
cost report, plans; written from the epoch's data (`EpochData`), which the loop gathers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from harnesspro.core.atomic import atomic_path
from harnesspro.core.records import Candidate, Score
from harnesspro.core.uncertainty import Uncertainty
from harnesspro.reports.costs import epoch_costs, write_csv
from harnesspro.reports.pareto_plot import draw_front, front_frame


@dataclass(frozen=True)
class EpochData:
    """What one epoch's reports read: the run's candidates and scores after the epoch, its
    picks, the rollouts and plans recorded so far."""

    epoch: int
    folder: Path  # reports/epoch-N/
    seed_id: str
    picks: Mapping[str, str]  # mode -> candidate id
    scores: Mapping[str, Score]
    candidates: Mapping[str, Candidate]
    rollouts: pd.DataFrame
    plans: pd.DataFrame
    confidence: float
    intervals: Mapping[str, Uncertainty] = field(default_factory=dict)
    validation: Mapping[str, Score] = field(default_factory=dict)


def write_epoch_reports(data: EpochData) -> None:
    """reports/epoch-N/{pareto.html, front.csv, costs.csv, plans.csv}."""
    data.folder.mkdir(parents=True, exist_ok=True)
    frame = front_frame(
        data.scores, data.candidates, data.picks, data.seed_id, data.intervals, data.validation
    )
    title = f"Pareto front after epoch {data.epoch}"
    draw_front(frame, title, data.folder / "pareto.html", data.confidence)
    with atomic_path(data.folder / "front.csv") as tmp:
        frame.to_csv(tmp, index=False)
    with atomic_path(data.folder / "costs.csv") as tmp:
        write_csv(epoch_costs(data.rollouts, data.epoch, data.seed_id), tmp)
    with atomic_path(data.folder / "plans.csv") as tmp:
        data.plans[data.plans["epoch"] == data.epoch].to_csv(tmp, index=False)
