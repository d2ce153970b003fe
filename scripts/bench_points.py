"""Where a strategy's hypervolume comes from: per strategy of a finished bench, how often its
operating points coincide, and the area its best single point dominates.

With the reference at (pass 0, 2 x the seed's cost) a point (p, c) alone dominates
p x (2 x seed cost - c); the table gives it relative to the seed's own area, averaged over
units, for the lite point and for the best of the three.

    .venv/bin/python scripts/bench_points.py OUT
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

MODES = ("lite", "medium", "heavy")


def area(rows: pd.DataFrame, mode: str) -> pd.Series:
    """The area `mode`'s point alone dominates, over the seed's own."""
    ref = 2 * rows["seed_cost"]
    own = rows[f"{mode}_pass"] * (ref - rows[f"{mode}_cost"]).clip(lower=0)
    return own / (rows["seed_pass"] * rows["seed_cost"])


def same(rows: pd.DataFrame, a: str, b: str) -> float:
    equal = (rows[f"{a}_pass"] == rows[f"{b}_pass"]) & (rows[f"{a}_cost"] == rows[f"{b}_cost"])
    return float(equal.mean())


def table(rows: pd.DataFrame) -> str:
    lines = [
        "| strategy | units | lite = medium | medium = heavy | lite's area | best point's area |",
        "|---|---|---|---|---|---|",
    ]
    for variant, group in rows.groupby("variant", sort=False):
        best = np.maximum.reduce([area(group, m).to_numpy() for m in MODES])
        lines.append(
            f"| {variant} | {len(group)} | {same(group, 'lite', 'medium'):.2f} | "
            f"{same(group, 'medium', 'heavy'):.2f} | {area(group, 'lite').mean():.3f} | "
            f"{best.mean():.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not (Path(argv[0]) / "bench.csv").is_file():
        print("usage: bench_points.py OUT (a bench folder holding bench.csv)", file=sys.stderr)
        return 2
    print(table(pd.read_csv(Path(argv[0]) / "bench.csv")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
