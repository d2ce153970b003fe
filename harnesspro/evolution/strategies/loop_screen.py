"""The loop's first epoch and its priors, on the analyzer's evidence of the seed.

Screening: a balanced design (planner/screening.py) over the catalog mechanisms the seed's
findings point to first (those answering the most widespread findings), topped up by the
catalog's expected effect when fewer than the design needs; without findings, over every
mechanism. Each row is predicted from the findings (planner/catalog.py:predict), named by
the finding its mechanisms answer, and given the directive of its predicted place on the
front (the cheapest third of the rows cost-first, the dearest performance-first).

Priors: the surrogate's prior mean for a mechanism is what the planner predicts for it from
the findings (`findings`), the catalog's expectation (`catalog`: the findings withheld), or
no effect (`flat`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np

from harnesspro.core.records import DIRECTIVES, Plan
from harnesspro.evolution.strategies.loop_choice import PriorOf
from harnesspro.evolution.strategies.state import SearchState
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.improvers.analyzer.findings import Finding, answered, shares
from harnesspro.improvers.planner.catalog import combined, predict
from harnesspro.improvers.planner.features import Features
from harnesspro.improvers.planner.screening import screening_design
from harnesspro.improvers.planner.space import (
    EXCLUSIVE,
    GENES,
    PRIOR_LOGIT_SCALE,
    levers_of,
    name_of,
)
from harnesspro.improvers.planner.surrogate import Prior, flat_prior
from harnesspro.run.context import SEED_ID

PriorMode = Literal["findings", "catalog", "flat"]
MAX_SCREEN, MIN_SCREEN = 9, 4


def pooled(findings: Mapping[str, Sequence[Finding]]) -> dict[str, float]:
    """Kind -> mean share over the parents (0 where a parent does not show it)."""
    kinds = {f.kind for found in findings.values() for f in found}
    n = max(1, len(findings))
    return {k: sum(shares(found).get(k, 0.0) for found in findings.values()) / n for k in kinds}


def prior_of(mode: PriorMode, findings: Mapping[str, Sequence[Finding]]) -> PriorOf:
    """The surrogate's prior for features, by `mode`."""
    seen = pooled(findings)

    def prior(features: Features) -> Prior:
        base = features.prior()
        if mode == "flat":
            return flat_prior(len(features.names))
        if mode == "catalog":
            return base
        pass_mean, cost_mean = base.pass_mean.copy(), base.cost_mean.copy()
        for j, name in enumerate(GENES):
            p = predict(CATALOG[name], seen)
            pass_mean[j], cost_mean[j] = p.d_pass * PRIOR_LOGIT_SCALE, np.log1p(p.d_cost)
        return Prior(pass_mean, cost_mean)

    return prior


def screened(findings: Sequence[Finding], need: int) -> list[str]:
    """The mechanisms screened: those answering a finding, the most widespread first, then
    the rest by expected effect until there are `need`; every one without findings."""
    if not findings:
        return list(GENES)
    seen = shares(findings)

    def reach(name: str) -> float:
        return max((seen.get(k, 0.0) for k in CATALOG[name].addresses), default=0.0)

    def size(name: str) -> float:
        m = CATALOG[name]
        return abs(m.expected_pass) * PRIOR_LOGIT_SCALE + abs(m.expected_cost)

    ranked = sorted(GENES, key=lambda n: (-reach(n), -size(n), n))
    answering = [n for n in ranked if reach(n) > 0]
    return ranked[: max(need, len(answering))]


def screening_plans(state: SearchState, findings: Sequence[Finding]) -> list[Plan]:
    """The first epoch's rows over the screened mechanisms (4-9 rows: two thirds of what the
    cap affords)."""
    budget = state.affordable
    rows = MAX_SCREEN if budget is None else min(MAX_SCREEN, max(MIN_SCREEN, budget * 2 // 3))
    names = screened(findings, rows)
    groups = [tuple(names.index(n) for n in g if n in names) for g in EXCLUSIVE]
    design = screening_design(rows, len(names), [g for g in groups if len(g) > 1],
                              state.run_seed * 1000 + state.epoch)  # fmt: skip
    genomes = [
        np.array([g in {names[j] for j in np.flatnonzero(r)} for g in GENES]) for r in design
    ]
    seen = shares(findings)
    effects = [
        combined([predict(CATALOG[n], seen) for n in name_of(b).split("+")]) for b in genomes
    ]
    order = np.argsort([e.d_cost for e in effects], kind="stable")
    place = {int(i): DIRECTIVES[min(2, 3 * k // len(order))] for k, i in enumerate(order)}
    which = "the levers the findings point to" if findings else "every lever"
    plans = []
    for i, (bits, effect) in enumerate(zip(genomes, effects, strict=True)):
        found = answered(
            [k for n in name_of(bits).split("+") for k in CATALOG[n].addresses], findings
        )
        aim = f"answers {found.describe()}" if found else "answers no finding"
        plans.append(Plan(
            SEED_ID, place[i], name_of(bits),
            f"screening row {i + 1} of {rows} over {len(names)} mechanisms ({which}): each in "
            f"about half of the rows; {aim}",
            round(effect.d_pass, 4), round(effect.d_cost, 4), levers=levers_of(bits),
            finding=found.describe() if found else "",
        ))  # fmt: skip
    return plans
