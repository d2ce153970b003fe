"""What the loop's planner predicts for a gene of the harness's space: a catalog mechanism
from the findings it answers, a declared knob value by its expectation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.improvers.planner.catalog import predict
from harnesspro.improvers.planner.evidence import NO_EVIDENCE, Beliefs
from harnesspro.improvers.planner.space import Space


def addresses_of(name: str) -> tuple[str, ...]:
    """The finding kinds a gene answers (a catalog mechanism's; a knob value answers none)."""
    return CATALOG[name].addresses if name in CATALOG else ()


def gene_prediction(
    space: Space, name: str, seen: Mapping[str, float], beliefs: Beliefs = NO_EVIDENCE
) -> tuple[float, float]:
    """A gene's predicted (pass-rate, relative cost) change: a catalog mechanism's from the
    findings (planner/catalog.py:predict), a knob value's expectation otherwise."""
    if name in CATALOG:
        p = predict(CATALOG[name], seen, beliefs)
        return p.d_pass, p.d_cost
    gene = space.genes.get(name)
    return (gene.expected_pass, gene.expected_cost) if gene else (0.0, 0.0)


def combined(space: Space, names: Sequence[str], seen: Mapping[str, float]) -> tuple[float, float]:
    """Several genes' prediction: pass-rate changes add, cost factors multiply."""
    preds = [gene_prediction(space, n, seen) for n in names]
    return sum(p for p, _ in preds), float(np.prod([1 + c for _, c in preds])) - 1
