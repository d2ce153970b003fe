"""Side by side: a calibration table of the real model against the same plan run on drawn
profiles of a scripted world. Each table is reduced to the figures a world must match (the
base's pass rate, the spread of single-mechanism effects on pass rate and tokens, the flip
share, the spread of pair and stack interactions, the shares of changes that measure any
effect, the additive fit's gain); a world's drawn profiles give each figure a 5-95% range,
and the real model's figure falls inside it or not. Pure computation over tables' rows."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harnesspro.bench.additive_fit import additive_fit
from harnesspro.bench.calibration import Plan
from harnesspro.bench.calibration_report import VariantRow, acts, report

LOW, HIGH = 0.05, 0.95
"""The range a world's profiles give a figure."""

Rows = Sequence[Mapping[str, Any]]


def _share(rows: list[VariantRow], kind: str) -> float:
    some = [r for r in rows if r.kind == kind and r.pass_effect is not None]
    if not some:
        return math.nan
    return float(np.mean([acts(r) for r in some]))


def _quantile(values: list[float], q: float) -> float:
    kept = [v for v in values if not math.isnan(v)]
    return float(np.quantile(kept, q)) if kept else math.nan


def _singles(rows: list[VariantRow], field: str) -> list[float]:
    out = []
    for r in rows:
        e = getattr(r, field)
        if r.kind == "single" and e is not None:
            out.append(e.mean)
    return out


def _interaction_sd(rows: list[VariantRow]) -> float:
    gaps = [r.interaction.mean for r in rows if r.interaction is not None]
    return float(np.std(gaps, ddof=1)) if len(gaps) >= 2 else math.nan


def _flips(rows: list[VariantRow]) -> float:
    shares = [r.flip_share for r in rows if not math.isnan(r.flip_share)]
    return float(np.mean(shares)) if shares else math.nan


def _base_pass(rows: list[VariantRow]) -> float:
    return next((r.pass_rate for r in rows if r.kind == "base"), math.nan)


def _fit_gain(plan: Plan, table: Rows) -> float:
    fit = additive_fit(plan, table)
    return math.nan if fit is None else fit.gain


Figure = Callable[[list[VariantRow]], float]

FIGURES: dict[str, Figure] = {
    "base pass rate": _base_pass,
    "single pass effect, lowest": lambda rs: min(_singles(rs, "pass_effect"), default=math.nan),
    "single pass effect, median": lambda rs: _quantile(_singles(rs, "pass_effect"), 0.5),
    "single pass effect, highest": lambda rs: max(_singles(rs, "pass_effect"), default=math.nan),
    "single token effect, lowest": lambda rs: min(_singles(rs, "token_effect"), default=math.nan),
    "single token effect, median": lambda rs: _quantile(_singles(rs, "token_effect"), 0.5),
    "single token effect, highest": lambda rs: max(_singles(rs, "token_effect"), default=math.nan),
    "flip share (mean over variants)": _flips,
    "interaction SD (pairs and stacks)": _interaction_sd,
    "singles that measure an effect": lambda rs: _share(rs, "single"),
    "free-form changes that measure an effect": lambda rs: _share(rs, "free-form"),
}
"""Each figure of one table, from its report rows (nan: the table cannot say)."""

FIT = "additive fit gain (nats a rollout)"


def figures(plan: Plan, table: Rows) -> dict[str, float]:
    """The figures of one table (in FIGURES' order, then the additive fit's gain)."""
    rows = report(plan, table)
    out = {name: figure(rows) for name, figure in FIGURES.items()}
    out[FIT] = _fit_gain(plan, table)
    return out


@dataclass(frozen=True)
class WorldRange:
    """One figure over a world's drawn profiles."""

    low: float
    high: float
    profiles: int
    """Profiles whose table gives the figure."""

    def holds(self, value: float) -> bool | None:
        """Whether `value` falls in the range (None when either side has no figure)."""
        if math.isnan(value) or self.profiles == 0:
            return None
        return self.low <= value <= self.high


@dataclass(frozen=True)
class SideBySide:
    """One figure: the real model's and each world's range."""

    figure: str
    real: float
    worlds: dict[str, WorldRange]


def world_range(values: Iterable[float]) -> WorldRange:
    """The 5-95% range of a figure over profiles (linear interpolation between them)."""
    kept = [v for v in values if not math.isnan(v)]
    if not kept:
        return WorldRange(math.nan, math.nan, 0)
    low, high = np.quantile(kept, [LOW, HIGH])
    return WorldRange(float(low), float(high), len(kept))


def _cell(row: Mapping[str, Any]) -> tuple[str, str, int]:
    return row["variant"], row["task"], int(row.get("attempt", 0))


def same_cells(real: Rows, table: Rows) -> list[Mapping[str, Any]]:
    """`table`'s rows in the cells (variant, task, attempt) the real table has: a figure
    such as "measures an effect" depends on how many rollouts it rests on, so a world is
    read on the real table's design, however far that has got."""
    cells = {_cell(r) for r in real}
    return [r for r in table if _cell(r) in cells]


def side_by_side(plan: Plan, real: Rows, worlds: Mapping[str, Sequence[Rows]]) -> list[SideBySide]:
    """Each figure of the real table beside each world's range over its profiles' tables,
    read on the real table's cells."""
    mine = figures(plan, real)
    theirs = {
        name: [figures(plan, same_cells(real, t)) for t in tables]
        for name, tables in worlds.items()
    }
    return [
        SideBySide(
            figure,
            value,
            {name: world_range(f[figure] for f in fs) for name, fs in theirs.items()},
        )
        for figure, value in mine.items()
    ]
