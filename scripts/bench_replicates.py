"""How far one run can be from a front of several runs of the same strategy: for a bench of
one strategy with several run seeds per profile (no --paired), whose yardstick per profile is
the union of those replicates' points, over profiles (mean [90% interval]):

- each replicate's normalised hypervolume (its mean over a profile's replicates), and the
  best and the worst replicate's;
- the seed point alone against the front of its own measurements: the same harness in every
  replicate, so what it loses there is test-split noise alone (without `sampling_seed` the
  run seed changes the model's draws; with it, the seed point is the same in every replicate
  and this is 1);
- the spread (SD within a profile) of the seed's test pass rate.

    .venv/bin/python scripts/bench_replicates.py OUT [OUT ...]
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd

from harnesspro.bench.arithmetic import Interval, area, bootstrap_interval, reference_front
from harnesspro.bench.yardstick import REF_COST_MULTIPLE


def seed_alone(unit: pd.DataFrame) -> float:
    """Mean over a profile's replicates of the seed point's area over that of the front of
    every replicate's measurement of it (reference cost: twice their mean cost, as the
    yardstick fixes it); NaN when no measurement passed anything."""
    seeds = list(zip(unit["seed_pass"], unit["seed_cost"], strict=True))
    ref = REF_COST_MULTIPLE * float(unit["seed_cost"].mean())
    whole = area(reference_front([[s] for s in seeds]), ref)
    if whole <= 0:
        return math.nan
    return sum(area([s], ref) for s in seeds) / len(seeds) / whole


def figures(rows: pd.DataFrame) -> dict[str, Interval]:
    by = rows.groupby("profile")
    if (by.size() < 2).any():
        raise ValueError("every profile needs two or more run seeds (a bench without --paired)")
    hv = by["normalised_hv"]
    return {
        "normalised HV of a replicate": bootstrap_interval(list(hv.mean())),
        "the best replicate's": bootstrap_interval(list(hv.max())),
        "the worst replicate's": bootstrap_interval(list(hv.min())),
        "the seed point alone, against its own measurements": bootstrap_interval(
            [v for v in (seed_alone(unit) for _, unit in by) if not math.isnan(v)]
        ),
        "SD of the seed's test pass rate": bootstrap_interval(list(by["seed_pass"].std())),
    }


def main(argv: list[str]) -> int:
    folders = [Path(a) for a in argv]
    if not folders or not all((f / "bench.csv").is_file() for f in folders):
        print("usage: bench_replicates.py OUT [OUT ...] (bench folders holding bench.csv)",
              file=sys.stderr)  # fmt: skip
        return 2
    rows = pd.concat([pd.read_csv(f / "bench.csv") for f in folders], ignore_index=True)
    if rows["variant"].nunique() != 1:
        print("bench_replicates.py: give benches of one strategy", file=sys.stderr)
        return 2
    try:
        table = figures(rows)
    except ValueError as exc:
        print(f"bench_replicates.py: {exc}", file=sys.stderr)
        return 2
    print("| over profiles | profiles | mean [90% interval] |\n|---|---|---|")
    for name, i in table.items():
        print(f"| {name} | {i.n} | {i.mean:.3f} [{i.low:.3f}, {i.high:.3f}] |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
