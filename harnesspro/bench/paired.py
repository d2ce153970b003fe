"""Paired comparisons over units, pure: the unit is one (behaviour profile, run seed) pair, on
which every strategy ran with the same splits and the same shared random draws (the rollout
cache and the policy's common random numbers). For the default strategy against each other
one: the mean paired difference of a figure (normalised hypervolume by default) over units, a
90% percentile-bootstrap interval (units resampled, fixed RNG seed, so reproducible), the
smallest difference this many units can detect, and the wins/ties/losses as a secondary count.

Power: for a two-sided test at level 0.10 (the 90% interval excludes 0) with 80% power, the
smallest true mean difference detectable at n units with paired-difference standard deviation
SD is about (z_0.95 + z_0.80) x SD / sqrt(n) = (1.645 + 0.842) x SD / sqrt(n) ~ 2.49 x
SD / sqrt(n) (normal approximation).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from harnesspro.bench.arithmetic import TIE, bootstrap_interval

Z_LEVEL = 1.6448536269514722  # two-sided 90%: the 95th percentile of the standard normal
Z_POWER = 0.8416212335729143  # 80% power: its 80th percentile
POWER_FACTOR = Z_LEVEL + Z_POWER  # ~2.487
TARGET = 0.05  # the difference in normalised hypervolume the power line asks about
BOOTSTRAP_SEED = 20261202  # the bootstrap's own RNG seed: the same rows give the same interval


@dataclass(frozen=True)
class Paired:
    """The default strategy minus one other, over the units both have a figure on."""

    other: str
    units: int
    mean: float
    low: float
    high: float
    sd: float
    detectable: float  # the smallest mean difference these units detect (see module doc)
    wins: int
    ties: int
    losses: int
    left_out: int = 0  # units either side ran but with no finite figure (e.g. nothing passed)


def detectable_difference(differences: Sequence[float]) -> float:
    """POWER_FACTOR x SD / sqrt(n) (SD with n - 1); NaN under two units."""
    x = np.asarray(differences, dtype=float)
    if x.size < 2:
        return math.nan
    return float(POWER_FACTOR * x.std(ddof=1) / math.sqrt(x.size))


def compare(
    other: str,
    mine: Mapping[Hashable, float],
    theirs: Mapping[Hashable, float],
    seed: int = BOOTSTRAP_SEED,
) -> Paired:
    """`mine` - `theirs` unit by unit (units both have a finite figure on)."""
    common = [
        u for u in mine if u in theirs and math.isfinite(mine[u]) and math.isfinite(theirs[u])
    ]
    diffs = [mine[u] - theirs[u] for u in common]
    left_out = len(set(mine) | set(theirs)) - len(common)
    interval = bootstrap_interval(diffs, seed=seed)
    sd = float(np.std(diffs, ddof=1)) if len(diffs) > 1 else math.nan
    return Paired(
        other,
        len(diffs),
        interval.mean,
        interval.low,
        interval.high,
        sd,
        detectable_difference(diffs),
        sum(d > TIE for d in diffs),
        sum(abs(d) <= TIE for d in diffs),
        sum(d < -TIE for d in diffs),
        left_out,
    )


def unit_figures(rows: pd.DataFrame, variant: str, column: str) -> dict[Hashable, float]:
    """One variant's figure per unit: (profile, run seed), the run seed None without one."""
    part = rows[rows["variant"] == variant]
    seeds = part["run_seed"] if "run_seed" in part else pd.Series([None] * len(part))
    return {
        (int(p), None if s is None or pd.isna(s) else int(s)): float(v)
        for p, s, v in zip(part["profile"], seeds, part[column], strict=True)
    }


def paired_frame(
    rows: pd.DataFrame, default: str, column: str = "normalised_hv", seed: int = BOOTSTRAP_SEED
) -> pd.DataFrame:
    """One row per other variant: `default` minus it on `column`, over units."""
    mine = unit_figures(rows, default, column)
    out = []
    for other in dict.fromkeys(rows["variant"]):
        if other == default:
            continue
        p = compare(str(other), mine, unit_figures(rows, str(other), column), seed)
        out.append({"figure": column, **p.__dict__})
    return pd.DataFrame(out)


PAIRED_COLUMNS = (
    "comparison",
    "units",
    "mean paired difference [90% interval]",
    "SD",
    "detectable difference",
    "wins/ties/losses",
)


def paired_markdown(frame: pd.DataFrame, default: str) -> str:
    """The paired table and its power line, in Markdown."""
    lines = ["| " + " | ".join(PAIRED_COLUMNS) + " |", "|" + "---|" * len(PAIRED_COLUMNS)]
    for _, r in frame.iterrows():
        lines.append(
            f"| {default} - {r['other']} ({r['figure']}) | {int(r['units'])} | "
            f"{r['mean']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}] | {r['sd']:.3f} | "
            f"{r['detectable']:.3f} | {int(r['wins'])}/{int(r['ties'])}/{int(r['losses'])} |"
        )
    return "\n".join(lines) + "\n\n" + power_line(frame)


def power_line(frame: pd.DataFrame) -> str:
    """What this many units can tell apart."""
    if frame.empty:
        return "Power: no paired units."
    n = int(frame["units"].max())
    dropped = int(frame["left_out"].max()) if "left_out" in frame else 0
    note = (
        f" {dropped} unit(s) left out: one side has no finite figure there (e.g. nothing "
        "passed on the test split, so there is no area to normalise by)."
        if dropped
        else ""
    )
    return _power(frame, n) + note


def _power(frame: pd.DataFrame, n: int) -> str:
    sds = frame["sd"].dropna()
    if sds.empty:
        return f"Power: {n} unit(s); at least two are needed for an interval's width."
    typical = float(sds.median())
    return (
        f"Power: at {n} units and a median paired SD of {typical:.3f}, the smallest mean "
        f"difference detected with 80% power by a 90% two-sided interval is about "
        f"{POWER_FACTOR * typical / math.sqrt(n):.3f} ({POWER_FACTOR:.2f} x SD / sqrt(n)); "
        f"detecting {TARGET} would take about {units_needed(typical, TARGET)} units. "
        "Intervals that contain 0 are ties."
    )


def units_needed(sd: float, difference: float) -> int:
    """Units for POWER_FACTOR x SD / sqrt(n) <= `difference`."""
    return math.ceil((POWER_FACTOR * sd / difference) ** 2)
