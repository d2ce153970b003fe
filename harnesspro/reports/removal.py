"""The component-removal report (reports/removal.csv, from evaluation/removal.py): written,
read back and printed; the dashboard shows the same table."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from harnesspro.core.atomic import atomic_path
from harnesspro.evaluation.removal import Removal

REMOVAL_REPORT = "removal.csv"
COLUMNS = [f.name for f in dataclasses.fields(Removal)]


def removal_table(removals: Sequence[Removal]) -> pd.DataFrame:
    """The report's table: one row per variant, the record's fields as columns."""
    return pd.DataFrame([dataclasses.astuple(r) for r in removals], columns=COLUMNS)


def write_removal(frame: pd.DataFrame, folder: Path) -> Path:
    """reports/removal.csv."""
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_path(folder / REMOVAL_REPORT) as tmp:
        frame.to_csv(tmp, index=False)
    return folder / REMOVAL_REPORT


def load_removal(run_dir: Path) -> pd.DataFrame:
    """reports/removal.csv, empty when component removal did not run."""
    path = run_dir / "reports" / REMOVAL_REPORT
    return pd.read_csv(path) if path.is_file() else pd.DataFrame()


def _signed(x: float, fmt: str) -> str:
    return "n/a" if math.isnan(x) else format(x, fmt)


def removal_lines(frame: pd.DataFrame) -> list[str]:
    """One line per variant: its pass rate and cost on the coreset beside the whole point's."""
    if frame.empty:
        return []
    lines = ["component removal (coreset, official tests; change from the whole point):"]
    for r in frame.to_dict("records"):
        lines.append(
            f"  {r['mode']} {r['point']} without {r['removed']}: pass {r['pass_rate']:.1%} "
            f"({_signed(float(r['pass_change']) * 100, '+.1f')} points), cost "
            f"{_signed(float(r['cost_change']), '+.1%')} ({r['rollouts']} rollouts)"
        )
    return lines
