"""`harnesspro bench interim OUT`: the tables of a bench still running (or stopped), from its
finished units only, without resuming or writing anything.

A bench writes its summary after each profile (and, with `--workers N`, when every shard is
done); this reads what is there: each unit (profile, run seed) of OUT/runs whose runs of every
variant in the bench have a held-out report (reports/final.csv) and whose profile's yardstick
is stored (OUT/yardsticks), and prints the paired table, the power line and the per-strategy
table as `harnesspro bench` does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harnesspro.bench import report, yardstick
from harnesspro.bench.folders import MODES, RunFolder, run_folders
from harnesspro.bench.paired import paired_frame, paired_markdown
from harnesspro.bench.runner import Outcome
from harnesspro.core.ledger import Ledger
from harnesspro.core.metrics import search_rollouts
from harnesspro.execution.fakes.sampling import sample_profile


@dataclass(frozen=True)
class Interim:
    """What a bench has finished so far."""

    outcomes: tuple[Outcome, ...]
    yardsticks: dict[int, yardstick.Yardstick]
    units: int  # units with every variant's run finished and a stored yardstick
    waiting: int  # units begun but not finished


def finished(run: RunFolder) -> bool:
    return (run.path / "reports" / "final.csv").is_file()


def outcome(run: RunFolder) -> Outcome:
    """One finished run's test points, read from its folder."""
    table = pd.read_csv(run.path / "reports" / "final.csv")
    columns = (table["harness"], table["pass_rate"], table["cost_per_task"])
    found = {str(h): (float(p), float(c)) for h, p, c in zip(*columns, strict=True)}
    ledger = Ledger(run.path / "ledger.sqlite")
    try:
        search = len(search_rollouts(ledger.rollout_rows()))
    finally:
        ledger.close()
    test = len(json.loads((run.path / "splits.json").read_text())["test"])
    points = {m: found[m] for m in MODES if m in found}
    misleading = sample_profile(run.profile).misleading
    return Outcome(
        run.variant, run.profile, misleading, points, search, str(run.path), run.run_seed, test
    )


def interim(out: Path) -> Interim:
    """The finished units of the bench in `out`."""
    runs = run_folders(out)
    variants = list(dict.fromkeys(r.variant for r in runs))
    by_unit: dict[tuple[int, int | None], list[RunFolder]] = {}
    for run in runs:
        by_unit.setdefault((run.profile, run.run_seed), []).append(run)
    outcomes: list[Outcome] = []
    sticks: dict[int, yardstick.Yardstick] = {}
    done = 0
    for (profile, _), mine in sorted(by_unit.items(), key=lambda u: (u[0][0], u[0][1] or 0)):
        stick = yardstick.load(yardstick.path_for(out / "yardsticks", profile))
        complete = {r.variant for r in mine if finished(r)} == set(variants)
        if stick is None or not complete:
            continue
        sticks[profile] = stick
        outcomes += [outcome(r) for r in sorted(mine, key=lambda r: variants.index(r.variant))]
        done += 1
    return Interim(tuple(outcomes), sticks, done, len(by_unit) - done)


def interim_markdown(found: Interim, default: str = report.DEFAULT) -> str:
    """The paired table and the per-strategy table over the finished units."""
    head = f"{found.units} units finished, {found.waiting} under way or stopped."
    if not found.outcomes:
        return head
    rows = report.run_rows(found.outcomes, {}, found.yardsticks)
    variants = list(dict.fromkeys(o.variant for o in found.outcomes))
    chosen = default if default in variants else variants[0]
    paired = paired_markdown(paired_frame(rows, chosen), chosen)
    table = report.markdown(report.summary(rows, seed=0, default_variant=chosen))
    return "\n\n".join([head, paired, table])
