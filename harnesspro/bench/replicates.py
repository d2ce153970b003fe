"""`harnesspro bench replicates OUT ...`: how far one run can be from a front of several runs of
the same strategy. For benches of one strategy with several run seeds per profile (without
--paired), whose yardstick per profile is the union of those replicates' points, over profiles
(mean [90% interval]):

- each replicate's normalised hypervolume (its mean over a profile's replicates), and the
  best and the worst replicate's;
- the seed point alone against the front of its own measurements: the same harness in every
  replicate, so what it loses there is test-split noise alone (without `sampling_seed` the
  run seed changes the model's draws; with it, the seed point is the same in every replicate
  and this is 1);
- the spread (SD within a profile) of the seed's test pass rate.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

from harnesspro.bench.arithmetic import Interval, area, bootstrap_interval, reference_front
from harnesspro.bench.folders import BenchRow
from harnesspro.bench.yardstick import REF_COST_MULTIPLE


def seed_alone(replicates: Sequence[BenchRow]) -> float:
    """Mean over a profile's replicates of the seed point's area over that of the front of
    every replicate's measurement of it (reference cost: twice their mean cost, as the
    yardstick fixes it); NaN when no measurement passed anything."""
    seeds = [r.points["seed"] for r in replicates]
    ref = REF_COST_MULTIPLE * statistics.fmean(c for _, c in seeds)
    whole = area(reference_front([[s] for s in seeds]), ref)
    if whole <= 0:
        return math.nan
    return sum(area([s], ref) for s in seeds) / len(seeds) / whole


def replicate_figures(rows: Sequence[BenchRow]) -> dict[str, Interval]:
    """The figures above, by name; ValueError for benches of several strategies or a profile
    with fewer than two run seeds."""
    if len({r.variant for r in rows}) != 1:
        raise ValueError("give benches of one strategy (one variant in bench.csv)")
    by: dict[int, list[BenchRow]] = {}
    for r in sorted(rows, key=lambda r: r.profile):
        by.setdefault(r.profile, []).append(r)
    if any(len(unit) < 2 for unit in by.values()):
        raise ValueError("every profile needs two or more run seeds (a bench without --paired)")
    hv = [[r.normalised_hv for r in unit] for unit in by.values()]
    alone = [seed_alone(unit) for unit in by.values()]
    spread = [statistics.stdev(r.points["seed"][0] for r in unit) for unit in by.values()]
    return {
        "normalised HV of a replicate": bootstrap_interval([statistics.fmean(h) for h in hv]),
        "the best replicate's": bootstrap_interval([max(h) for h in hv]),
        "the worst replicate's": bootstrap_interval([min(h) for h in hv]),
        "the seed point alone, against its own measurements": bootstrap_interval(
            [v for v in alone if not math.isnan(v)]
        ),
        "SD of the seed's test pass rate": bootstrap_interval(spread),
    }


def replicates_markdown(figures: Mapping[str, Interval]) -> str:
    lines = ["| over profiles | profiles | mean [90% interval] |", "|---|---|---|"]
    for name, i in figures.items():
        lines.append(f"| {name} | {i.n} | {i.mean:.3f} [{i.low:.3f}, {i.high:.3f}] |")
    return "\n".join(lines)
