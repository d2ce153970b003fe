"""Calibrate the bench's fast mode against real rollouts: the same bench command run twice,
once with `--fast`, compared run by run.

    .venv/bin/python scripts/fast_calibration.py REAL_OUT FAST_OUT

For every (variant, profile, run seed) in both, it compares the test-split pass rate and cost
per task of each operating point (seed, lite, medium, heavy) and each run's normalised
hypervolume, then the strategies' order by mean normalised hypervolume. Prints a Markdown
table; exits 1 when a tolerance (below) is exceeded.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

PASS_TOLERANCE = 1 / 42  # one test rollout of the bench's split (14 tasks x K = 3)
COST_TOLERANCE = 0.02  # relative, per task
POINTS = ("seed", "lite", "medium", "heavy")
KEYS = ["variant", "profile", "run_seed"]


def compare(real: pd.DataFrame, fast: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Per run and point: both figures and their differences; the strategies' orders."""
    both = real.merge(fast, on=KEYS, suffixes=("_real", "_fast"))
    rows = []
    for _, run in both.iterrows():
        for point in POINTS:
            p_real, p_fast = run[f"{point}_pass_real"], run[f"{point}_pass_fast"]
            c_real, c_fast = run[f"{point}_cost_real"], run[f"{point}_cost_fast"]
            rows.append(
                {
                    **{k: run[k] for k in KEYS},
                    "point": point,
                    "pass_diff": abs(p_fast - p_real),
                    "cost_rel_diff": abs(c_fast - c_real) / c_real if c_real else 0.0,
                }
            )
    order = [
        " > ".join(both.groupby("variant")[f"normalised_hv_{side}"].mean().sort_values(
            ascending=False).index)
        for side in ("real", "fast")
    ]  # fmt: skip
    return pd.DataFrame(rows), order


def main(real_out: Path, fast_out: Path) -> int:
    real = pd.read_csv(real_out / "bench.csv")
    fast = pd.read_csv(fast_out / "bench.csv")
    table, order = compare(real, fast)
    runs = len(table) // len(POINTS)
    worst_pass, worst_cost = table["pass_diff"].max(), table["cost_rel_diff"].max()
    print("| runs | points | max pass difference | max cost difference | order real | order fast |")
    print("|---|---|---|---|---|---|")
    print(
        f"| {runs} | {len(table)} | {worst_pass:.3f} (tolerance {PASS_TOLERANCE:.3f}) | "
        f"{worst_cost:.1%} (tolerance {COST_TOLERANCE:.0%}) | {order[0]} | {order[1]} |"
    )
    ok = (
        worst_pass <= PASS_TOLERANCE + 1e-9
        and worst_cost <= COST_TOLERANCE
        and order[0] == order[1]
    )
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
