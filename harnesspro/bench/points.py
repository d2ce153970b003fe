"""Where a strategy's hypervolume comes from, on its operating points (bench.csv): per
strategy, how often its points coincide, and the area its best single point dominates.

With the reference at (pass 0, 2 x the seed's cost) a point (p, c) alone dominates
p x (2 x seed cost - c); the table gives it over the seed's own area p0 x c0, averaged over
units, for the lite point and for the best of the three. `harnesspro bench points OUT` prints
this table, then those of bench/candidates.py and bench/survivors.py.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from harnesspro.bench.folders import BenchRow, variants_in
from harnesspro.bench.yardstick import REF_COST_MULTIPLE

CHOSEN = ("lite", "medium", "heavy")


@dataclass(frozen=True)
class PointShares:
    """One strategy's operating points over its units."""

    variant: str
    units: int
    lite_is_medium: float  # share of units where the two points are one
    medium_is_heavy: float
    lite_area: float  # mean over units of the lite point's area over the seed's
    best_area: float  # the same for the best of lite, medium and heavy


def point_area(row: BenchRow, mode: str) -> float:
    """The area `mode`'s point alone dominates, over the seed's own."""
    seed_pass, seed_cost = row.points["seed"]
    pass_rate, cost = row.points[mode]
    own = pass_rate * max(REF_COST_MULTIPLE * seed_cost - cost, 0.0)
    return own / (seed_pass * (REF_COST_MULTIPLE - 1) * seed_cost)


def point_shares(rows: Sequence[BenchRow]) -> list[PointShares]:
    """Per strategy, in the order of bench.csv."""
    out = []
    for variant in variants_in(rows):
        mine = [r for r in rows if r.variant == variant]
        out.append(
            PointShares(
                variant,
                len(mine),
                statistics.fmean(r.points["lite"] == r.points["medium"] for r in mine),
                statistics.fmean(r.points["medium"] == r.points["heavy"] for r in mine),
                statistics.fmean(point_area(r, "lite") for r in mine),
                statistics.fmean(max(point_area(r, m) for m in CHOSEN) for r in mine),
            )
        )
    return out


def points_markdown(shares: Sequence[PointShares]) -> str:
    lines = [
        "| strategy | units | lite = medium | medium = heavy | lite's area | best point's area |",
        "|---|---|---|---|---|---|",
    ]
    for s in shares:
        lines.append(
            f"| {s.variant} | {s.units} | {s.lite_is_medium:.2f} | {s.medium_is_heavy:.2f} | "
            f"{s.lite_area:.3f} | {s.best_area:.3f} |"
        )
    return "\n".join(lines)
