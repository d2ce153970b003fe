"""The run's budget vector: what the search spent against each cap, and the held-out
evaluation's spend apart (it runs after the search, outside the search's caps)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from harnesspro.core.atomic import write_text_atomic
from harnesspro.reports.rollout_frames import on_split, search_rollouts


@dataclass(frozen=True)
class Spend:
    """One component of the budget vector."""

    name: str
    cap: float | None  # None = uncapped
    spent: float | None  # None = unknown (an unpriced model), never 0


@dataclass(frozen=True)
class EpochSpend:
    """What one epoch of the search spent, and the running totals up to it."""

    epoch: int
    rollouts: int
    target_dollars: float | None
    improver_dollars: float | None
    cumulative_rollouts: int
    cumulative_target_dollars: float | None
    cumulative_improver_dollars: float | None


@dataclass(frozen=True)
class BudgetReport:
    search: tuple[Spend, ...]
    final_rollouts: int
    final_dollars: float | None
    stopped: str | None
    """Why the search stopped before its last epoch, or None when it ran them all."""
    epochs: tuple[EpochSpend, ...] = field(default=())
    final_cap: float | None = None
    """`budget.max_heldout_dollars` (None = uncapped)."""


def budget_report(
    rollouts: pd.DataFrame,
    max_rollouts: int | None,
    stopped: str | None,
    max_target_dollars: float | None = None,
    search_calls: pd.DataFrame | None = None,
    max_improver_dollars: float | None = None,
    discarded: pd.DataFrame | None = None,
    max_heldout_dollars: float | None = None,
) -> BudgetReport:
    """Spend from the ledger's rollouts and improver calls; every recorded rollout counts,
    infra faults too, and so do the `discarded` attempts (infrastructure errors run again)."""
    search, final = search_rollouts(rollouts), on_split(rollouts, "test")
    calls = search_calls if search_calls is not None else pd.DataFrame(columns=["epoch", "cost"])
    re_run = discarded if discarded is not None else pd.DataFrame({"split": [], "cost": []})
    search_costs = pd.concat([search["cost"], search_rollouts(re_run)["cost"]])
    final_costs = pd.concat([final["cost"], on_split(re_run, "test")["cost"]])
    spends = [
        Spend("rollouts", max_rollouts, float(len(search))),
        Spend("target_dollars", max_target_dollars, _dollars(search_costs)),
    ]
    if not calls.empty or max_improver_dollars is not None:  # else: no improver account
        spends.append(Spend("improver_dollars", max_improver_dollars, _dollars(calls["cost"])))
    return BudgetReport(
        search=tuple(spends),
        final_rollouts=len(final),
        final_dollars=_dollars(final_costs),
        stopped=stopped,
        epochs=per_epoch(search, calls),
        final_cap=max_heldout_dollars,
    )


def per_epoch(search: pd.DataFrame, calls: pd.DataFrame) -> tuple[EpochSpend, ...]:
    """The search's spend by epoch with running totals (unknown stays unknown from there on)."""
    out: list[EpochSpend] = []
    total_rollouts = 0
    total_target: float | None = 0.0
    total_improver: float | None = 0.0
    for epoch in sorted({int(e) for e in [*search["epoch"], *calls["epoch"]]}):
        mine = search[search["epoch"] == epoch]
        target = _dollars(mine["cost"])
        improver = _dollars(calls[calls["epoch"] == epoch]["cost"])
        total_rollouts += len(mine)
        total_target = _plus(total_target, target)
        total_improver = _plus(total_improver, improver)
        out.append(
            EpochSpend(
                epoch, len(mine), target, improver, total_rollouts, total_target, total_improver
            )
        )
    return tuple(out)


def _plus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _dollars(costs: pd.Series) -> float | None:
    """The sum, or None (unknown) when any cost is unknown (an unpriced model)."""
    return float(costs.sum()) if costs.notna().all() else None


def write_budget(report: BudgetReport, folder: Path) -> Path:
    """reports/budget.json."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "budget.json"
    # allow_nan=False: a NaN slipping in fails here instead of writing invalid JSON.
    write_text_atomic(path, json.dumps(asdict(report), indent=2, allow_nan=False) + "\n")
    return path


def describe(report: BudgetReport) -> list[str]:
    """Printable lines: each cap with its spend, then the held-out evaluation's spend."""

    def amount(name: str, value: float | None) -> str:
        if value is None or math.isnan(value):
            return "unknown (unpriced model, or no usage reported)"
        return f"${value:.4f}" if name.endswith("dollars") else f"{value:,.0f}"

    lines = [
        f"budget {s.name}: spent {amount(s.name, s.spent)} of "
        f"{'no cap' if s.cap is None else amount(s.name, s.cap)}"
        for s in report.search
    ]
    cap = "no cap" if report.final_cap is None else amount("dollars", report.final_cap)
    lines.append(
        f"held-out evaluation (outside the search caps): {report.final_rollouts:,} rollouts, "
        f"{amount('dollars', report.final_dollars)} of {cap} (budget.max_heldout_dollars)"
    )
    if report.stopped:
        lines.append(f"search stopped early: {report.stopped}")
    return lines


def load_lines(run_dir: Path) -> list[str]:
    """The run's budget as printable lines (`harnesspro report`); [] before any exists."""
    path = run_dir / "reports" / "budget.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text())
    search = tuple(Spend(**s) for s in data.pop("search"))
    epochs = tuple(EpochSpend(**e) for e in data.pop("epochs", []))
    return describe(BudgetReport(search=search, epochs=epochs, **data))
