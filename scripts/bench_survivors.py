"""How much room the default strategy's final choice has: per `harnesspro` run of a finished
bench, its survivors at the end (on the shrunk points of `reports/shrunk.csv`: at or above the
seed's pass rate, non-dominated) and whether the three survivors with the largest hypervolume
against the run's reference point are the points it handed back (`reports/final.csv`).

    .venv/bin/python scripts/bench_survivors.py OUT
"""

from __future__ import annotations

import itertools
import sqlite3
import sys
from pathlib import Path

import pandas as pd

from harnesspro.core.pareto import hypervolume, survivors


def run_row(run: Path) -> tuple[int, bool]:
    """(survivors, whether the largest-hypervolume three are the run's own points)."""
    shrunk = pd.read_csv(run / "reports" / "shrunk.csv")
    final = pd.read_csv(run / "reports" / "final.csv")
    with sqlite3.connect(run / "ledger.sqlite") as db:
        query = "select value from meta where key = 'hypervolume_ref_cost'"
        ref = float(db.execute(query).fetchone()[0])
    ids = list(shrunk["candidate_id"])
    pr, cost = shrunk["shrunk_pass_rate"].to_numpy(), shrunk["shrunk_cost_per_task"].to_numpy()
    kept = [int(i) for i in survivors(pr, cost, float(pr[ids.index("c000")]))]
    size = min(3, len(kept))
    best = max(
        itertools.combinations(kept, size),
        key=lambda combo: hypervolume(pr[list(combo)], cost[list(combo)], ref),
    )
    picked = set(final.loc[final["harness"] != "seed", "candidate_id"])
    return len(kept), {ids[i] for i in best} == picked


def main(argv: list[str]) -> int:
    runs = sorted(Path(argv[0]).glob("runs/harnesspro-p*")) if len(argv) == 1 else []
    if not runs:
        print(
            "usage: bench_survivors.py OUT (a bench folder with harnesspro runs)", file=sys.stderr
        )
        return 2
    rows = pd.DataFrame([run_row(r) for r in runs], columns=["survivors", "same"])
    print(
        f"{len(rows)} runs: survivors mean {rows['survivors'].mean():.2f} "
        f"(min {rows['survivors'].min()}, max {rows['survivors'].max()}); the largest-"
        f"hypervolume three are the run's own points in {int(rows['same'].sum())} of {len(rows)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
