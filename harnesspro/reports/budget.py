"""The run's budget vector: what the search spent against each cap, and the held-out
evaluation's spend apart (it runs after the search, outside the search's caps)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from harnesspro.atomic import write_text_atomic
from harnesspro.metrics import on_split, search_rollouts


@dataclass(frozen=True)
class Spend:
    """One component of the budget vector."""

    name: str
    cap: float | None  # None = uncapped
    spent: float


@dataclass(frozen=True)
class BudgetReport:
    search: tuple[Spend, ...]
    final_rollouts: int
    final_dollars: float
    stopped: str | None
    """Why the search stopped before its last epoch, or None when it ran them all."""


def budget_report(
    rollouts: pd.DataFrame,
    max_rollouts: int | None,
    stopped: str | None,
    max_target_dollars: float | None = None,
    discarded: pd.DataFrame | None = None,
) -> BudgetReport:
    """Spend from the ledger's rollouts; every recorded rollout counts, infra faults too, and
    so do the `discarded` attempts (infrastructure errors that were run again)."""
    search, final = search_rollouts(rollouts), on_split(rollouts, "test")
    re_run = discarded if discarded is not None else pd.DataFrame({"split": [], "cost": []})
    search_costs = pd.concat([search["cost"], search_rollouts(re_run)["cost"]])
    final_costs = pd.concat([final["cost"], on_split(re_run, "test")["cost"]])
    return BudgetReport(
        search=(
            Spend("rollouts", max_rollouts, float(len(search))),
            Spend("target_dollars", max_target_dollars, _dollars(search_costs)),
        ),
        final_rollouts=len(final),
        final_dollars=_dollars(final_costs),
        stopped=stopped,
    )


def _dollars(costs: pd.Series) -> float:
    """The sum, or NaN (unknown) when any rollout's cost is unknown (an unpriced model)."""
    return float(costs.sum()) if costs.notna().all() else math.nan


def write_budget(report: BudgetReport, folder: Path) -> Path:
    """reports/budget.json."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "budget.json"
    write_text_atomic(path, json.dumps(asdict(report), indent=2) + "\n")
    return path


def describe(report: BudgetReport) -> list[str]:
    """Printable lines: each cap with its spend, then the held-out evaluation's spend."""

    def amount(name: str, value: float | None) -> str:
        if value is None or math.isnan(value):
            return "unknown (unpriced model)"
        return f"${value:.4f}" if name.endswith("dollars") else f"{value:,.0f}"

    lines = [
        f"budget {s.name}: spent {amount(s.name, s.spent)} of "
        f"{'no cap' if s.cap is None else amount(s.name, s.cap)}"
        for s in report.search
    ]
    lines.append(
        f"held-out evaluation (outside the search caps): {report.final_rollouts:,} rollouts, "
        f"{amount('dollars', report.final_dollars)}"
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
    return describe(BudgetReport(search=search, **data))
