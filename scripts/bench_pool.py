"""The paired table over the units of several finished benches together (each bench's
bench.csv; units are (profile, run seed), so benches on other profiles or run seeds add units),
then each variant's mean normalised hypervolume over the same units, and the mean of the best
any one variant reached on each unit. A unit's reference front is the union of the variants'
points, so that mean is what a variant would score by matching, on every unit, the best of
those benched beside it (a variant scores more only by beating all of them on some units).

    .venv/bin/python scripts/bench_pool.py OUT [OUT ...] [--reference=V1,V2]

`--reference` recomputes every normalised hypervolume against each unit's front of the named
variants' points alone (their seed and three operating points; reference cost twice the
seed's, as the bench measures), e.g. a front one strategy can match; a variant left out of it
can score above 1.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd

from harnesspro.bench.arithmetic import Interval, Point, area, bootstrap_interval, reference_front
from harnesspro.bench.paired import paired_frame, paired_markdown
from harnesspro.bench.report import DEFAULT
from harnesspro.bench.yardstick import REF_COST_MULTIPLE

BEST = "best of the variants, per unit"
MODES = ("seed", "lite", "medium", "heavy")


def points(row: pd.Series) -> list[Point]:
    return [(float(row[f"{m}_pass"]), float(row[f"{m}_cost"])) for m in MODES]


def against(rows: pd.DataFrame, reference: list[str]) -> pd.DataFrame:
    """The rows with normalised_hv recomputed against each unit's front of the `reference`
    variants' points."""
    out = rows.copy()
    for _, unit in rows.groupby(["profile", "run_seed"]):
        ref_cost = REF_COST_MULTIPLE * float(unit["seed_cost"].iloc[0])
        mine = unit[unit["variant"].isin(reference)]
        whole = area(reference_front([points(r) for _, r in mine.iterrows()]), ref_cost)
        for i, row in unit.iterrows():
            own = area(points(row), ref_cost)
            out.at[i, "normalised_hv"] = own / whole if whole > 0 else math.nan
    return out


def pooled(folders: list[Path], reference: list[str] | None = None) -> str:
    rows = pd.concat([pd.read_csv(f / "bench.csv") for f in folders], ignore_index=True)
    if reference:
        missing = set(reference) - set(rows["variant"])
        if missing:
            raise ValueError(f"--reference names {', '.join(sorted(missing))}, not benched here")
        rows = against(rows, reference)
    units = rows[["profile", "run_seed"]].astype(str).agg("/".join, axis=1)
    if (units + rows["variant"]).duplicated().any():
        raise ValueError("a unit appears in two of these benches: pool benches on other units")
    return paired_markdown(paired_frame(rows, DEFAULT), DEFAULT) + "\n\n" + levels(rows)


def level_rows(rows: pd.DataFrame) -> dict[str, Interval]:
    """Mean normalised hypervolume [90% interval] per variant over the units, and of each
    unit's best variant."""
    table = rows.pivot_table(index=["profile", "run_seed"], columns="variant",
                             values="normalised_hv", aggfunc="first")  # fmt: skip
    out = {str(v): bootstrap_interval(list(table[v].dropna())) for v in table.columns}
    out[BEST] = bootstrap_interval(list(table.max(axis=1, skipna=True)))
    return out


def levels(rows: pd.DataFrame) -> str:
    lines = ["| variant | units | mean normalised HV [90% interval] |", "|---|---|---|"]
    for name, i in level_rows(rows).items():
        lines.append(f"| {name} | {i.n} | {i.mean:.3f} [{i.low:.3f}, {i.high:.3f}] |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    flag = "--reference="
    reference = [v for a in argv if a.startswith(flag) for v in a[len(flag) :].split(",") if v]
    folders = [Path(a) for a in argv if not a.startswith(flag)]
    if not folders or not all((f / "bench.csv").is_file() for f in folders):
        print(
            "usage: bench_pool.py OUT [OUT ...] [--reference=V1,V2] (bench folders holding "
            "bench.csv)",
            file=sys.stderr,
        )
        return 2
    try:
        print(pooled(folders, reference))
    except ValueError as exc:
        print(f"bench_pool.py: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
