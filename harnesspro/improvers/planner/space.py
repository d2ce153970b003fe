"""The catalog as a search space: a candidate is a set of catalog mechanisms applied to the
seed, i.e. one bit per mechanism (a genome), with weak priors on each bit's effect.

Mechanisms that set the same setting override each other (the later one in catalog order
wins), so a genome holding both would measure only one: `EXCLUSIVE` keeps them apart.
"""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt

from harnesspro.harness.mechanisms.catalog import BUNDLE_SEP, CATALOG
from harnesspro.improvers.planner.surrogate import Prior

GENES: tuple[str, ...] = tuple(CATALOG)
EXCLUSIVE: tuple[tuple[str, ...], ...] = (("high_effort", "low_effort"),)
"""Both set `request.reasoning_effort`."""

PRIOR_LOGIT_SCALE = 4.0  # d logit / d pass rate at a 50% pass rate


def exclusive_indices() -> list[tuple[int, ...]]:
    return [tuple(GENES.index(n) for n in group) for group in EXCLUSIVE]


def genome_of(names: set[str]) -> npt.NDArray[np.bool_]:
    """Bits of the named mechanisms (names outside the catalog are ignored)."""
    return np.array([g in names for g in GENES], dtype=bool)


def parts(name: str | None) -> set[str]:
    """The mechanism names a plan name joins with '+'."""
    return {p for p in (name or "").split(BUNDLE_SEP) if p}


def name_of(bits: npt.NDArray[np.bool_]) -> str:
    """The plan name of a genome: its mechanisms in catalog order, joined by '+'."""
    return BUNDLE_SEP.join(g for g, on in zip(GENES, bits, strict=True) if on)


def levers_of(bits: npt.NDArray[np.bool_]) -> tuple[str, ...]:
    """The distinct levers a genome touches, in catalog order."""
    return tuple(dict.fromkeys(CATALOG[g].lever for g, on in zip(GENES, bits, strict=True) if on))


def all_genomes() -> npt.NDArray[np.bool_]:
    """Every genome that keeps exclusive mechanisms apart (rows), the empty one included."""
    rows = np.array(list(itertools.product((False, True), repeat=len(GENES))), dtype=bool)
    keep = np.ones(len(rows), dtype=bool)
    for group in exclusive_indices():
        keep &= rows[:, list(group)].sum(axis=1) <= 1
    return rows[keep]


def catalog_prior() -> Prior:
    """Main effects centred on the catalog's expected effects (weakly: the catalog describes
    an average model, not this one): pass on the logit scale, cost as log(1 + change)."""
    mechs = [CATALOG[g] for g in GENES]
    return Prior(
        np.array([m.expected_pass * PRIOR_LOGIT_SCALE for m in mechs]),
        np.array([np.log1p(m.expected_cost) for m in mechs]),
    )
