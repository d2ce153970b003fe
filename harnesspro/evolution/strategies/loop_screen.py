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
from dataclasses import replace
from typing import Literal

import numpy as np

from harnesspro.core.records import DIRECTIVES, Plan
from harnesspro.evolution.strategies.expected_gain import screening_plans as catalog_screening
from harnesspro.evolution.strategies.expected_gain import screening_rows
from harnesspro.evolution.strategies.loop_choice import PriorOf
from harnesspro.evolution.strategies.loop_genes import addresses_of, combined, gene_prediction
from harnesspro.evolution.strategies.state import SearchState
from harnesspro.harness.mechanisms.genes import GeneSet
from harnesspro.improvers.analyzer.findings import Finding, answered, shares
from harnesspro.improvers.planner.features import Features
from harnesspro.improvers.planner.space import CATALOG_SPACE, PRIOR_LOGIT_SCALE, Space, parts
from harnesspro.improvers.planner.surrogate import Prior, flat_prior
from harnesspro.improvers.roles.directed import aim

PriorMode = Literal["findings", "catalog", "flat"]


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
        for j, name in enumerate(features.space.names):
            d_pass, d_cost = gene_prediction(features.space, name, seen)
            pass_mean[j], cost_mean[j] = d_pass * PRIOR_LOGIT_SCALE, np.log1p(d_cost)
        return Prior(pass_mean, cost_mean)

    return prior


def screened(findings: Sequence[Finding], need: int, space: Space = CATALOG_SPACE) -> list[str]:
    """The genes screened: those answering a finding, the most widespread first, then the
    rest by expected effect until there are `need`; every one without findings."""
    if not findings:
        return list(space.names)
    seen = shares(findings)

    def reach(name: str) -> float:
        return max((seen.get(k, 0.0) for k in addresses_of(name)), default=0.0)

    def size(name: str) -> float:
        d_pass, d_cost = gene_prediction(space, name, {})
        return abs(d_pass) * PRIOR_LOGIT_SCALE + abs(d_cost)

    ranked = sorted(space.names, key=lambda n: (-reach(n), -size(n), n))
    answering = [n for n in ranked if reach(n) > 0]
    return ranked[: max(need, len(answering))]


def subspace(space: Space, names: Sequence[str]) -> Space:
    """The space of `names` only (its exclusive groups kept where two or more remain)."""
    keep = set(names)
    groups = tuple(g for g in (tuple(n for n in group if n in keep) for group in space.exclusive))
    return Space(GeneSet(tuple(g for g in space.genes.genes if g.name in keep),
                         tuple(g for g in groups if len(g) > 1)))  # fmt: skip


def screening_plans(state: SearchState, findings: Sequence[Finding]) -> list[Plan]:
    """The first epoch's rows (harnesspro-catalog's design: strategies/expected_gain.py) over
    the screened genes, each predicted from the findings, named by the finding it answers,
    given the directive of its predicted cost among the rows."""
    rows = screening_rows(state.affordable)
    names = screened(findings, rows, state.space)
    design = catalog_screening(replace(state, space=subspace(state.space, names)))
    seen = shares(findings)
    effects = [combined(state.space, sorted(parts(p.mechanism)), seen) for p in design]
    order = np.argsort([c for _, c in effects], kind="stable")
    place = {int(i): DIRECTIVES[min(2, 3 * k // len(order))] for k, i in enumerate(order)}
    which = "the levers the findings point to" if findings else "every lever"
    plans = []
    for i, (row, (d_pass, d_cost)) in enumerate(zip(design, effects, strict=True)):
        found = answered([k for n in parts(row.mechanism) for k in addresses_of(n)], findings)
        why = (f"screening row {i + 1} of {len(design)} over {len(names)} genes ({which}): each "
               f"in about half of the rows; {aim(found)}")  # fmt: skip
        plans.append(
            replace(
                row, directive=place[i], rationale=why, predicted_pass=round(d_pass, 4),
                predicted_cost=round(d_cost, 4), finding=found.describe() if found else "",
            )
        )  # fmt: skip
    return plans
