"""The paired table over the units of several finished benches together (each bench's
bench.csv; units are (profile, run seed), so benches on other profiles or run seeds add units).

    .venv/bin/python scripts/bench_pool.py OUT [OUT ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from harnesspro.bench.paired import paired_frame, paired_markdown
from harnesspro.bench.report import DEFAULT


def pooled(folders: list[Path]) -> str:
    rows = pd.concat([pd.read_csv(f / "bench.csv") for f in folders], ignore_index=True)
    units = rows[["profile", "run_seed"]].astype(str).agg("/".join, axis=1)
    if (units + rows["variant"]).duplicated().any():
        raise ValueError("a unit appears in two of these benches: pool benches on other units")
    return paired_markdown(paired_frame(rows, DEFAULT), DEFAULT)


def main(argv: list[str]) -> int:
    folders = [Path(a) for a in argv]
    if not folders or not all((f / "bench.csv").is_file() for f in folders):
        print(
            "usage: bench_pool.py OUT [OUT ...] (bench folders holding bench.csv)", file=sys.stderr
        )
        return 2
    try:
        print(pooled(folders))
    except ValueError as exc:
        print(f"bench_pool.py: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
