"""What the search can switch on in one harness: its genes. A gene is a catalog mechanism whose
recipe applies to the harness's declared knobs, or one declared value of a knob (`name=label`)
that differs from the harness's own and that no applicable mechanism already sets alone.
Mechanisms come first, in catalog order; then knob values, in declaration order.

Genes that set the same knob to different values override each other (the later edit wins),
so a genome holding both would measure only one: they form an exclusive group.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harnesspro.core.knobs import Knob
from harnesspro.harness.knob_files import read_value
from harnesspro.harness.mechanisms import recipes
from harnesspro.harness.mechanisms.catalog import BUNDLE_SEP, CATALOG, Mechanism
from harnesspro.harness.mechanisms.recipes import Knobs, Recipe, set_to

LABEL = re.compile(r"[A-Za-z0-9_.-]{1,24}")


@dataclass(frozen=True)
class Gene:
    """One bit of a genome: its plan name, lever, expected effect (the catalog's, 0 for a
    knob value) and the recipe that switches it on."""

    name: str
    lever: str
    expected_pass: float
    expected_cost: float
    recipe: Recipe

    def apply(self, worktree: Path) -> None:
        recipes.apply(self.recipe, worktree, recipes.knobs_of(worktree))

    def validate(self, worktree: Path) -> str:
        """'' when the gene is in place in `worktree`, else the reason."""
        try:
            held = recipes.holds(self.recipe, worktree, recipes.knobs_of(worktree))
            return "" if held else f"{self.name} is not in effect after editing"
        except (OSError, KeyError, TypeError, AttributeError, ValueError) as exc:
            return f"{self.name} could not be checked: {exc}"


def label(knob: Knob, value: Any) -> str:
    """A knob value's label in a gene name: the value itself when short and plain, else
    `v<n>`, its place among the declared values (1-based)."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return text if LABEL.fullmatch(text) else f"v{knob.values.index(value) + 1}"


def knob_genes(knob: Knob, current: Any, taken: set[tuple[str, str]]) -> list[Gene]:
    """The declared values of a scalar or text knob other than `current` and those in
    `taken` (knob, repr(value)) as genes; none for a list or set knob."""
    if knob.collection:
        return []
    return [
        Gene(f"{knob.name}={label(knob, v)}", knob.lever, 0.0, 0.0, set_to(knob.name, v))
        for v in knob.values
        if v != current and (knob.name, repr(v)) not in taken
    ]


@dataclass(frozen=True)
class GeneSet:
    """A harness's genes and their exclusive groups (gene names)."""

    genes: tuple[Gene, ...]
    exclusive: tuple[tuple[str, ...], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.genes)

    def get(self, name: str) -> Gene | None:
        return next((g for g in self.genes if g.name == name), None)


def exclusive_groups(genes: tuple[Gene, ...]) -> tuple[tuple[str, ...], ...]:
    """Per knob that two or more genes set (to different values), those genes."""
    by_knob: dict[str, list[str]] = {}
    for gene in genes:
        for step in gene.recipe.steps:
            if step.op == "set":
                by_knob.setdefault(step.knob, []).append(gene.name)
    return tuple(tuple(dict.fromkeys(g)) for g in by_knob.values() if len(set(g)) > 1)


def gene_set(knobs: Knobs, root: Path | None) -> GeneSet:
    """The genes of a harness declaring `knobs` (its files at `root`, read for the knobs'
    current values; None: no knob value is taken for current)."""
    catalog = [m for m in CATALOG.values() if not m.problem(knobs)]
    genes = [_gene(m) for m in catalog]
    taken = {(s[0], repr(s[1])) for m in catalog if (s := m.recipe.setting()) is not None}
    for knob in knobs.values():
        current = read_value(root, knob) if root is not None and knob.values else None
        genes += knob_genes(knob, current, taken)
    return GeneSet(tuple(genes), exclusive_groups(tuple(genes)))


def genes_of(root: Path) -> GeneSet:
    """The genes of the harness at `root`."""
    return gene_set(recipes.knobs_of(root), root)


def _gene(m: Mechanism) -> Gene:
    return Gene(m.name, m.lever, m.expected_pass, m.expected_cost, m.recipe)


CATALOG_GENES = GeneSet(tuple(_gene(m) for m in CATALOG.values()), (("high_effort", "low_effort"),))
"""Every catalog mechanism, as the search knew them before harnesses declared knobs (what
the bundled seed's knobs give)."""


def resolve(name: str, knobs: Knobs) -> Gene | None:
    """The gene named `name` on a harness declaring `knobs` (whatever its current values):
    an applicable catalog mechanism, or `knob=label` for a declared value; else None."""
    mechanism = CATALOG.get(name)
    if mechanism is not None:
        return None if mechanism.problem(knobs) else _gene(mechanism)
    knob_name, sep, wanted = name.partition("=")
    knob = knobs.get(knob_name)
    if not sep or knob is None or knob.collection:
        return None
    value = next((v for v in knob.values if label(knob, v) == wanted), None)
    return None if value is None else knob_genes(knob, None, set())[knob.values.index(value)]


def parts_in(name: str, worktree: Path) -> tuple[Gene, ...]:
    """The genes a plan name joins with '+', resolved against the knobs the harness in
    `worktree` declares; () unless every part is one of them."""
    knobs = recipes.knobs_of(worktree)
    parts = name.split(BUNDLE_SEP)
    found = tuple(g for part in parts if (g := resolve(part, knobs)) is not None)
    return found if len(found) == len(parts) else ()
