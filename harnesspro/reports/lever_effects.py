"""What each lever did, from the surrogate of lever effects fit to every measured coreset
rollout (pure, over ledger frames): one row per feature the measured candidates carry, with
its effect on pass rate and on cost per task when added alone to the seed, and intervals from
the posterior's draws.

A stack's verdict is not copied to its members: the surrogate separates the members' effects
as far as the measured candidates allow (one stack alone leaves them confounded, and the
intervals say so by staying wide).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from harnesspro.core.atomic import atomic_path
from harnesspro.core.ledger import rows_of
from harnesspro.core.metrics import candidate_scores
from harnesspro.core.records import Candidate
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.improvers.planner.features import LEVER_PREFIX, Features, measured_changes
from harnesspro.improvers.planner.measured import surrogate_of

COLUMNS = [
    "feature", "lever", "candidates", "pass_effect", "pass_lo", "pass_hi",
    "cost_effect", "cost_lo", "cost_hi", "reading",
]  # fmt: skip
DRAWS = 2000


def lever_of(name: str) -> str:
    """The lever a surrogate feature belongs to."""
    if name in CATALOG:
        return CATALOG[name].lever
    return name.removeprefix(LEVER_PREFIX) if name.startswith(LEVER_PREFIX) else "written change"


def label(name: str) -> str:
    """A feature as a reader names it: a catalog mechanism, the written changes declaring a
    lever, or the written change that made a candidate."""
    if name.startswith(LEVER_PREFIX):
        return "written changes on it"
    return name if name in CATALOG else f"the change that made {name}"


def reading(lo: float, hi: float, cost_lo: float, cost_hi: float) -> str:
    """helped / hurt / unclear on pass rate, then cheaper / dearer on cost when clear."""
    verdict = "helped" if lo > 0 else "hurt" if hi < 0 else "unclear"
    cost = "cheaper" if cost_hi < 0 else "dearer" if cost_lo > 0 else ""
    return f"{verdict}, {cost}" if cost else verdict


def lever_effects(
    rollouts: pd.DataFrame,
    coreset: tuple[str, ...],
    candidates: Mapping[str, Candidate],
    plans: pd.DataFrame,
    level: float = 0.9,
    seed: int = 0,
) -> pd.DataFrame:
    """Per feature carried by a measured candidate: the posterior mean and `level` interval
    of its effect on the seed (pass-rate difference; relative cost change)."""
    typed = rows_of(rollouts)
    scores = candidate_scores(typed, coreset)
    free = plans if "kind" in plans else plans.assign(kind=None)
    features = Features(measured_changes(free.to_dict("records"), candidates))
    model, genomes = surrogate_of(typed, coreset, candidates, scores, features)
    if not genomes:
        return pd.DataFrame(columns=COLUMNS)
    carried = np.array(list(genomes.values())).sum(axis=0)
    used = [j for j in range(len(features.names)) if carried[j] > 0]
    stack = np.zeros((len(used) + 1, len(features.names)), dtype=bool)
    for row, j in enumerate(used, start=1):
        stack[row, j] = True
    pr, cost = model.predict(stack, np.random.default_rng(seed), DRAWS)
    d_pass, d_cost = pr[:, 1:] - pr[:, :1], cost[:, 1:] / cost[:, :1] - 1
    tails = [(1 - level) / 2, 1 - (1 - level) / 2]
    (p_lo, p_hi), (c_lo, c_hi) = (
        np.quantile(d_pass, tails, axis=0),
        np.quantile(d_cost, tails, axis=0),
    )  # noqa: E501
    rows = [
        [label(features.names[j]), lever_of(features.names[j]), int(carried[j]),
         float(d_pass[:, i].mean()), float(p_lo[i]), float(p_hi[i]),
         float(d_cost[:, i].mean()), float(c_lo[i]), float(c_hi[i]),
         reading(p_lo[i], p_hi[i], c_lo[i], c_hi[i])]
        for i, j in enumerate(used)
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS).sort_values(["lever", "feature"], ignore_index=True)


def write_lever_effects(effects: pd.DataFrame, folder: Path) -> Path:
    """reports/lever_effects.csv."""
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_path(folder / "lever_effects.csv") as tmp:
        effects.to_csv(tmp, index=False)
    return folder / "lever_effects.csv"


def effect_lines(effects: pd.DataFrame, level: float) -> list[str]:
    """One line per feature: its lever, effect and interval, and how many candidates carry it."""
    if effects.empty:
        return ["lever effects: no measured candidate made of known levers"]
    head = (
        f"lever effects (the surrogate's, each added alone to the seed, {level:.0%} intervals; "
        "not a stack's verdict copied to its members):"
    )
    return [head] + [
        f"  {r['lever']} / {r['feature']} (in {r['candidates']} candidates): pass "
        f"{r['pass_effect']:+.3f} [{r['pass_lo']:+.3f}, {r['pass_hi']:+.3f}], cost "
        f"{r['cost_effect']:+.1%} [{r['cost_lo']:+.1%}, {r['cost_hi']:+.1%}]: {r['reading']}"
        for r in effects.to_dict("records")
    ]
