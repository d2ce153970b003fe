"""The planner's stacks: every combination of the catalog mechanisms that apply to a parent,
each proposed under the directives its prediction from the findings serves.

A single mechanism or a pair is a small step; a lineage built of them needs many epochs to
hold what a screening already showed to work together. So for each parent the planner also
proposes every stack of three or more mechanisms not on its lineage (mechanisms that set the
same setting kept apart), predicted from the findings as its parts are (pass-rate changes add,
cost factors multiply: planner/catalog.py:combined), under each directive that prediction
serves. There are up to 2^16 per parent: they stay arrays; per directive the surrogate keeps
the `KEEP` with the largest expected gain in its region (and over the whole front), and only
those compete with the planner's other proposals (strategies/loop_choice.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harnesspro.core.records import DIRECTIVES, Directive, Plan
from harnesspro.evolution.strategies.loop_genes import addresses_of, gene_prediction
from harnesspro.improvers.analyzer.findings import Finding, answered, shares
from harnesspro.improvers.planner.catalog import serves
from harnesspro.improvers.planner.features import Features, steps_of
from harnesspro.improvers.planner.space import Space
from harnesspro.improvers.roles.directed import Context, aim

MIN_SIZE = 3  # singles and pairs are the planner's directed proposals
MAX_FREE = 18  # genes a stack draws from (2^18 combinations at most; a larger space's first)
KEEP = 100  # stacks per directive left to compete after the shortlist


@dataclass(frozen=True)
class Stacks:
    """One parent's stacks: the mechanisms each adds (rows over GENES), their feature rows
    (the parent's lineage plus them) and the directives each serves."""

    parent: str
    space: Space
    added: npt.NDArray[np.bool_]
    rows: npt.NDArray[np.bool_]
    serves: Mapping[Directive, npt.NDArray[np.bool_]]
    d_pass: npt.NDArray[np.float64]
    d_cost: npt.NDArray[np.float64]


def subsets(free: Sequence[str], space: Space) -> npt.NDArray[np.bool_]:
    """Every combination of `free` of at least MIN_SIZE, exclusive genes apart (rows over the
    space's genes)."""
    cols = [space.names.index(n) for n in free]
    if len(cols) < MIN_SIZE:
        return np.zeros((0, len(space)), dtype=bool)
    grid = np.array(list(itertools.product((False, True), repeat=len(cols))), dtype=bool)
    grid = grid.reshape(-1, len(cols))
    keep = grid.sum(axis=1) >= MIN_SIZE
    for group in space.exclusive:
        inside = [i for i, n in enumerate(free) if n in group]
        keep &= grid[:, inside].sum(axis=1) <= 1
    out = np.zeros((int(keep.sum()), len(space)), dtype=bool)
    out[:, cols] = grid[keep]
    return out


def stacks_for(view: Context, features: Features, findings: Sequence[Finding]) -> Stacks | None:
    """The parent's stacks, or None when the surrogate cannot place its lineage."""
    space = features.space
    steps = steps_of(features, view.parent.id, view.candidates)
    if steps is None:
        return None
    free = [n for n in space.names if n not in view.carried() and n not in view.avoid]
    added = subsets(free[:MAX_FREE], space)
    base = features.bits(set(steps.genes), set(steps.changes))
    rows = np.tile(base, (len(added), 1))
    for group in space.exclusive:  # a later edit displaces an earlier one setting the same knob
        cols = [space.names.index(n) for n in group]
        hit = added[:, cols].any(axis=1)
        for col in cols:
            rows[hit, col] = False
    rows[:, : len(space)] |= added
    seen = shares(findings)
    preds = [gene_prediction(space, n, seen, view.beliefs) for n in space.names]
    d_pass = added @ np.array([p for p, _ in preds])
    d_cost = np.exp(added @ np.log1p([c for _, c in preds])) - 1
    serving = {
        d: np.array([serves(d, p, c) for p, c in zip(d_pass, d_cost, strict=True)], dtype=bool)
        for d in DIRECTIVES
    }
    return Stacks(view.parent.id, space, added, rows, serving, d_pass, d_cost)


def stack_plan(stacks: Stacks, row: int, directive: Directive, findings: Sequence[Finding]) -> Plan:
    """The plan of one stack: the genes it adds to its parent, their prediction, the
    finding they answer."""
    bits, space = stacks.added[row], stacks.space
    names = space.name_of(bits).split("+")
    found = answered([k for n in names for k in addresses_of(n)], findings)
    return Plan(
        parent_id=stacks.parent, directive=directive, mechanism=space.name_of(bits),
        rationale=f"a stack of {len(names)} genes serving {directive}; {aim(found)}",
        predicted_pass=round(float(stacks.d_pass[row]), 4),
        predicted_cost=round(float(stacks.d_cost[row]), 4), levers=space.levers_of(bits),
        finding=found.describe() if found else "",
    )  # fmt: skip


def all_stacks(
    views: Mapping[str, Context], features: Features, told: Mapping[str, Sequence[Finding]]
) -> list[Stacks]:
    """Every parent's stacks the surrogate can place."""
    found = (stacks_for(v, features, told[p]) for p, v in views.items())
    return [s for s in found if s is not None and len(s.added)]
