"""The deployable operating points (lite / medium / heavy) of a run, read from its ledger."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harnesspro.core.ledger import Ledger
from harnesspro.core.metrics import known_mean, on_split, row_tokens
from harnesspro.core.records import RolloutRow


@dataclass(frozen=True)
class OperatingPoint:
    mode: str
    candidate: str
    commit: str
    mechanisms: str
    pass_rate: float
    cost_per_task: float
    tokens_per_task: float
    epoch: int
    pass_rate_ci: tuple[float, float] | None = None
    """Bootstrap confidence interval of the coreset pass rate (evaluation.confidence)."""
    cost_ci: tuple[float, float] | None = None
    """Bootstrap confidence interval of the coreset cost per task."""
    p_nondominated: float | None = None
    """Share of bootstrap resamples in which the candidate is on the Pareto front."""

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: an unknown cost (unpriced model) or token count (no usage reported) is
        null, not NaN."""
        data = asdict(self)
        for key in ("cost_per_task", "tokens_per_task"):
            if math.isnan(data[key]):
                data[key] = None
        return data


class RunNotFound(ValueError):
    """The folder is not a run folder (or holds no finished epoch)."""


def _lineage_mechanisms(candidates: dict[str, tuple[str | None, str | None]], cid: str) -> str:
    names: list[str] = []
    current: str | None = cid
    while current is not None:
        parent, mechanism = candidates[current]
        if mechanism:
            names.append(mechanism)
        current = parent
    return "+".join(reversed(names)) or "seed"


def _uncertainty(intervals: Sequence[Mapping[Any, Any]], epoch: int, cid: str) -> dict[str, Any]:
    """The recorded bootstrap fields of one candidate at one epoch ({} if none; NaN -> None);
    `intervals` are the ledger's interval rows."""
    rows = [i for i in intervals if i["epoch"] == epoch and i["candidate_id"] == cid]
    if not rows:
        return {}
    values = {k: v for k, v in rows[0].items() if k not in ("epoch", "candidate_id")}
    r = {str(k): None if pd.isna(v) else float(v) for k, v in values.items()}
    return {
        "pass_rate_ci": None if r["pass_lo"] is None else (r["pass_lo"], r["pass_hi"]),
        "cost_ci": None if r["cost_lo"] is None else (r["cost_lo"], r["cost_hi"]),
        "p_nondominated": r["p_nondominated"],
    }


def tokens_per_task(rollouts: Iterable[RolloutRow]) -> dict[str, float]:
    """Per candidate, the mean billed tokens of its rollouts (NaN when any is unknown)."""
    per: dict[str, list[float]] = {}
    for r in rollouts:
        per.setdefault(r.candidate_id, []).append(row_tokens(r))
    return {cid: known_mean(values) for cid, values in sorted(per.items())}


def load_operating_points(run_dir: Path) -> list[OperatingPoint]:
    """The last finished epoch's selection, one operating point per mode."""
    if not (run_dir / "ledger.sqlite").is_file():
        raise RunNotFound(f"{run_dir}: not a run folder (no ledger.sqlite); pass runs/<run-id>.")
    ledger = Ledger(run_dir / "ledger.sqlite")
    try:
        selections = ledger.selections()
        if selections.empty:
            raise RunNotFound(
                f"{run_dir}: no epoch has finished yet; run `harnesspro evolve` first."
            )
        last = selections[selections["epoch"] == selections["epoch"].max()]
        candidates = {c.id: c for c in ledger.candidates()}
        links = {c.id: (c.parent, c.mechanism) for c in candidates.values()}
        # the split pass_rate is from
        tokens = tokens_per_task(on_split(ledger.rollout_rows(), "coreset"))
        intervals = ledger.intervals().to_dict("records")
        return [
            OperatingPoint(
                mode=str(row.mode),
                candidate=str(row.candidate_id),
                commit=candidates[str(row.candidate_id)].commit,
                mechanisms=_lineage_mechanisms(links, str(row.candidate_id)),
                pass_rate=float(row.pass_rate),
                cost_per_task=math.nan if row.cost is None else float(row.cost),
                tokens_per_task=float(tokens.get(row.candidate_id, math.nan)),
                epoch=int(row.epoch),
                **_uncertainty(intervals, int(row.epoch), str(row.candidate_id)),
            )
            for row in last.itertuples()
        ]
    finally:
        ledger.close()
