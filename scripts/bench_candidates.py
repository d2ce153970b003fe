"""What each strategy's search found, per strategy of a finished bench, averaged over its runs:
the coreset pass rate of its candidates (the label-free verdicts the search saw), the area the
best of them dominates on the coreset, and the area that same candidate dominates on the test
split when it was one of the points handed back (else left out), and how often it was.

A point (p, c) alone dominates p x (ref - c); areas are given over the seed's own: on the
coreset against the run's reference cost, on the test split against twice the seed's cost
there (the bench's yardstick).

    .venv/bin/python scripts/bench_candidates.py OUT
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import numpy as np
import pandas as pd

SEED = "c000"
QUERY = "select candidate_id, pass, official_pass, cost, split from rollouts where status = 'ok'"


def areas(points: pd.DataFrame, passed: str, ref: float) -> pd.Series:
    """Each candidate's area over the seed's."""
    own = points[passed] * (ref - points["cost"]).clip(lower=0)
    return own / own[SEED]


def run_row(run: Path) -> dict[str, float] | None:
    """The run's figures; None for a run without test rollouts (stopped before the end)."""
    with sqlite3.connect(run / "ledger.sqlite") as db:
        rollouts = pd.read_sql(QUERY, db)
        query = "select value from meta where key = 'hypervolume_ref_cost'"
        ref = float(db.execute(query).fetchone()[0])
    by = rollouts.groupby(["split", "candidate_id"])
    means = by[["pass", "official_pass", "cost"]].mean()
    if "test" not in means.index.get_level_values(0):
        return None
    coreset, test = means.loc["coreset"], means.loc["test"]
    search = areas(coreset, "pass", ref)
    held_out = areas(test, "official_pass", 2 * float(test.loc[SEED, "cost"]))
    best = str(search.idxmax())
    return {
        "candidates' coreset pass": float(coreset["pass"].mean()),
        "best area, coreset": float(search.max()),
        "best handed back": float(best in held_out.index),
        "its area, test": float(held_out.get(best, np.nan)),
    }


def main(argv: list[str]) -> int:
    runs = sorted(Path(argv[0]).glob("runs/*-p*")) if len(argv) == 1 else []
    runs = [r for r in runs if not r.name.startswith("exhaustive")]
    if not runs:
        print("usage: bench_candidates.py OUT (a finished bench folder)", file=sys.stderr)
        return 2
    figures = {r: run_row(r) for r in runs}
    done = [r for r in runs if figures[r] is not None]
    if len(done) < len(runs):
        print(f"left out {len(runs) - len(done)} runs without test rollouts (unfinished)")
    rows = pd.DataFrame([figures[r] for r in done])
    rows.insert(0, "strategy", [r.name.split("-p")[0] for r in done])
    table = rows.groupby("strategy", sort=False).mean()
    print("| strategy | " + " | ".join(table.columns) + " |")
    print("|---" * (len(table.columns) + 1) + "|")
    for strategy, row in table.iterrows():
        print(f"| {strategy} | " + " | ".join(f"{v:.3f}" for v in row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
