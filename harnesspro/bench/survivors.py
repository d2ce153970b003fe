"""How much room the default strategy's final choice has: per `harnesspro` run of a bench, its
survivors at the end (on the shrunk points of reports/shrunk.csv: at or above the seed's pass
rate, non-dominated) and whether the three survivors with the largest hypervolume against the
run's reference point are the points it handed back (reports/final.csv)."""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from harnesspro.bench.folders import RunFolder
from harnesspro.core.ledger import Ledger
from harnesspro.core.pareto import hypervolume, survivors
from harnesspro.evolution.select_step import HV_REF_KEY
from harnesspro.run.context import SEED_ID


@dataclass(frozen=True)
class RunSurvivors:
    """One run's survivors at the end."""

    run: str
    survivors: int
    own_points_largest: bool  # its handed-back points are the largest-hypervolume three


def run_survivors(run: RunFolder) -> RunSurvivors:
    shrunk = pd.read_csv(run.path / "reports" / "shrunk.csv")
    final = pd.read_csv(run.path / "reports" / "final.csv")
    ledger = Ledger(run.path / "ledger.sqlite")
    try:
        ref = float(ledger.meta(HV_REF_KEY) or math.nan)
    finally:
        ledger.close()
    ids = [str(i) for i in shrunk["candidate_id"]]
    pr, cost = shrunk["shrunk_pass_rate"].to_numpy(), shrunk["shrunk_cost_per_task"].to_numpy()
    kept = [int(i) for i in survivors(pr, cost, float(pr[ids.index(SEED_ID)]))]
    best = max(
        itertools.combinations(kept, min(3, len(kept))),
        key=lambda combo: hypervolume(pr[list(combo)], cost[list(combo)], ref),
    )
    picked = {str(c) for c in final.loc[final["harness"] != "seed", "candidate_id"]}
    return RunSurvivors(run.path.name, len(kept), {ids[i] for i in best} == picked)


def survivors_line(runs: Sequence[RunSurvivors]) -> str:
    counts = [r.survivors for r in runs]
    same = sum(r.own_points_largest for r in runs)
    return (
        f"{len(runs)} harnesspro runs: survivors mean {statistics.fmean(counts):.2f} "
        f"(min {min(counts)}, max {max(counts)}); the largest-hypervolume three are the run's "
        f"own points in {same} of {len(runs)}"
    )
