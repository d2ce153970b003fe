"""A harness's genes as a search space: a candidate is a set of genes (catalog mechanisms that
apply to the harness's knobs, and declared knob values: harness/mechanisms/genes.py) applied
to the seed, i.e. one bit per gene (a genome), with weak priors on each bit's effect.

Genes that set the same knob override each other (the later one wins), so a genome holding
both would measure only one: `exclusive` keeps them apart. The module-level helpers work on
`CATALOG_SPACE`, the bundled seed's space (every catalog mechanism).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from harnesspro.harness.mechanisms.catalog import BUNDLE_SEP
from harnesspro.harness.mechanisms.genes import CATALOG_GENES, GeneSet, genes_of
from harnesspro.improvers.planner.surrogate import Prior

PRIOR_LOGIT_SCALE = 4.0  # d logit / d pass rate at a 50% pass rate
MAX_POOL = 1 << 17
"""Most genomes the search enumerates; a larger space is sampled (seeded) down to this."""


@dataclass(frozen=True)
class Space:
    """The genes of one harness, in order, and their exclusive groups."""

    genes: GeneSet

    @property
    def names(self) -> tuple[str, ...]:
        return self.genes.names

    @property
    def exclusive(self) -> tuple[tuple[str, ...], ...]:
        return self.genes.exclusive

    def __len__(self) -> int:
        return len(self.genes.genes)

    def exclusive_indices(self) -> list[tuple[int, ...]]:
        return [tuple(self.names.index(n) for n in group) for group in self.exclusive]

    def genome_of(self, names: set[str]) -> npt.NDArray[np.bool_]:
        """Bits of the named genes (other names are ignored)."""
        return np.array([g in names for g in self.names], dtype=bool)

    def name_of(self, bits: npt.NDArray[np.bool_]) -> str:
        """The plan name of a genome: its genes in order, joined by '+'."""
        return BUNDLE_SEP.join(g for g, on in zip(self.names, bits, strict=True) if on)

    def levers_of(self, bits: npt.NDArray[np.bool_]) -> tuple[str, ...]:
        """The distinct levers a genome touches, in gene order."""
        genes = self.genes.genes
        return tuple(dict.fromkeys(g.lever for g, on in zip(genes, bits, strict=True) if on))

    def all_genomes(self) -> npt.NDArray[np.bool_]:
        """Every genome that keeps exclusive genes apart (rows, in lexicographic order of the
        bits, the empty one first), sampled down to MAX_POOL when there are more."""
        return all_rows(len(self), tuple(self.exclusive_indices())).copy()

    def prior(self) -> Prior:
        """Main effects centred on the catalog's expected effects (weakly: the catalog
        describes an average model, not this one), a knob value's on 0: pass on the logit
        scale, cost as log(1 + change)."""
        genes = self.genes.genes
        return Prior(
            np.array([g.expected_pass * PRIOR_LOGIT_SCALE for g in genes]),
            np.array([np.log1p(g.expected_cost) for g in genes]),
        )


@functools.lru_cache(maxsize=8)
def all_rows(m: int, exclusive: tuple[tuple[int, ...], ...]) -> npt.NDArray[np.bool_]:
    grouped = {j for group in exclusive for j in group}
    choices: list[list[tuple[int, ...]]] = [[(), *((j,) for j in g)] for g in exclusive]
    choices += [[(), (j,)] for j in range(m) if j not in grouped]
    count = int(np.prod([len(c) for c in choices])) if choices else 1
    rng = np.random.default_rng(0)
    picks = (
        itertools.product(*choices)
        if count <= MAX_POOL
        else ([c[rng.integers(len(c))] for c in choices] for _ in range(MAX_POOL))
    )
    rows = np.zeros((min(count, MAX_POOL), m), dtype=bool)
    for r, pick in enumerate(picks):
        rows[r, [j for part in pick for j in part]] = True
    rows = np.unique(rows, axis=0)  # lexicographic, False before True
    rows.setflags(write=False)
    return rows


CATALOG_SPACE = Space(CATALOG_GENES)
GENES: tuple[str, ...] = CATALOG_SPACE.names
EXCLUSIVE = CATALOG_SPACE.exclusive


@functools.lru_cache(maxsize=16)
def space_of(harness_dir: Path) -> Space:
    """The search space of the harness at `harness_dir` (its declared knobs)."""
    return Space(genes_of(harness_dir))


def exclusive_indices() -> list[tuple[int, ...]]:
    return CATALOG_SPACE.exclusive_indices()


def genome_of(names: set[str]) -> npt.NDArray[np.bool_]:
    return CATALOG_SPACE.genome_of(names)


def parts(name: str | None) -> set[str]:
    """The gene names a plan name joins with '+'."""
    return {p for p in (name or "").split(BUNDLE_SEP) if p}


def name_of(bits: npt.NDArray[np.bool_]) -> str:
    return CATALOG_SPACE.name_of(bits)


def levers_of(bits: npt.NDArray[np.bool_]) -> tuple[str, ...]:
    return CATALOG_SPACE.levers_of(bits)


def all_genomes() -> npt.NDArray[np.bool_]:
    return CATALOG_SPACE.all_genomes()


def catalog_prior() -> Prior:
    return CATALOG_SPACE.prior()
