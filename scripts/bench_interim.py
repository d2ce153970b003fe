"""The paired table of a bench still running (or stopped), from its finished profiles only,
without resuming or writing anything.

A bench with `--workers N` writes its summary when every shard is done; this reads what is
there: for each profile (in the order given) whose runs of every strategy have a held-out
report and whose yardstick is stored, the runs' test points, and prints the paired table,
the power line and the per-strategy table as `harnesspro bench` does.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_interim.py OUT --run-seed S \\
        --profile-seeds P1,P2,... [--strategies harnesspro,random,nsga2,rho]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

import pandas as pd

from harnesspro.bench import report, yardstick
from harnesspro.bench.paired import paired_frame, paired_markdown
from harnesspro.bench.runner import MODES, Outcome
from harnesspro.execution.fakes.sampling import sample_profile


def outcome(run: Path, variant: str, profile: int, run_seed: int) -> Outcome:
    """One finished run's test points, read from its folder."""
    table = pd.read_csv(run / "reports" / "final.csv")
    points = {
        str(h): (float(p), float(c))
        for h, p, c in zip(
            table["harness"], table["pass_rate"], table["cost_per_task"], strict=True
        )
    }
    with sqlite3.connect(f"file:{run / 'ledger.sqlite'}?mode=ro", uri=True) as db:
        (search,) = db.execute("SELECT count(*) FROM rollouts WHERE split = 'coreset'").fetchone()
    test = len(json.loads((run / "splits.json").read_text())["test"])
    kept = {m: points[m] for m in MODES if m in points}
    misleading = sample_profile(profile).misleading
    return Outcome(variant, profile, misleading, kept, search, str(run), run_seed, test)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--run-seed", type=int, required=True)
    parser.add_argument("--profile-seeds", required=True)
    parser.add_argument("--strategies", default="harnesspro,random,nsga2,rho")
    args = parser.parse_args()
    variants = args.strategies.split(",")
    outcomes, sticks = [], {}
    for profile in map(int, args.profile_seeds.split(",")):
        runs = [args.out / "runs" / f"{v}-p{profile}-s{args.run_seed}" for v in variants]
        stick = yardstick.load(yardstick.path_for(args.out / "yardsticks", profile))
        if stick is None or not all((r / "reports" / "final.csv").exists() for r in runs):
            continue
        sticks[profile] = stick
        pairs = zip(variants, runs, strict=True)
        outcomes += [outcome(run, v, profile, args.run_seed) for v, run in pairs]
    rows = report.run_rows(outcomes, {}, sticks)
    print(paired_markdown(paired_frame(rows, variants[0]), variants[0]))
    print()
    print(report.markdown(report.summary(rows, seed=0)))


if __name__ == "__main__":
    main()
