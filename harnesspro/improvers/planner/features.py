"""A candidate's features for the surrogate: one bit per gene of the harness's space (catalog
mechanisms that apply to its knobs, and declared knob values: planner/space.py) along its
lineage and, for the changes the llm planner wrote in words (free-form plans), one bit per
change and one per lever it declares (a lever's bit is on when any free-form change on the lineage
declares it, so what the measured changes on a lever did carries over to the next one).

Priors: a gene's on the catalog's expected effect, 0 for a knob value (Space.prior), a
free-form change's on the planner's own prediction (its pass-rate change on the logit scale,
its relative cost change on the log scale, as the catalog's), a lever's centred on 0.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from harnesspro.core.records import Candidate
from harnesspro.improvers.planner.catalog import lineage
from harnesspro.improvers.planner.space import CATALOG_SPACE, PRIOR_LOGIT_SCALE, Space, parts
from harnesspro.improvers.planner.surrogate import Prior

LEVER_PREFIX = "lever:"
COST_FLOOR = -0.95  # a predicted cost change of -100% would be log 0


@dataclass(frozen=True)
class Change:
    """A free-form change: the candidate it made (or a proposal's key), the planner's
    predicted pass-rate and relative cost change, and the levers it declares."""

    key: str
    predicted_pass: float
    predicted_cost: float
    levers: tuple[str, ...]


@dataclass(frozen=True)
class Features:
    """The columns of a genome: the space's genes, then the levers the changes declare, then
    the changes."""

    changes: tuple[Change, ...] = ()
    space: Space = field(default=CATALOG_SPACE)

    @property
    def levers(self) -> tuple[str, ...]:
        return tuple(sorted({lever for c in self.changes for lever in c.levers}))

    @property
    def names(self) -> tuple[str, ...]:
        levers = tuple(LEVER_PREFIX + lever for lever in self.levers)
        return self.space.names + levers + tuple(c.key for c in self.changes)

    def bits(self, genes: set[str], changes: set[str]) -> npt.NDArray[np.bool_]:
        """The genome holding `genes` (catalog names) and the changes keyed `changes`."""
        declared = {lever for c in self.changes if c.key in changes for lever in c.levers}
        on = genes | {LEVER_PREFIX + lever for lever in declared} | changes
        return np.array([n in on for n in self.names], dtype=bool)

    def prior(self) -> Prior:
        base, zeros = self.space.prior(), np.zeros(len(self.levers))
        return Prior(
            np.concatenate([base.pass_mean, zeros, [c.predicted_pass * PRIOR_LOGIT_SCALE
                                                    for c in self.changes]]),
            np.concatenate([base.cost_mean, zeros, [np.log1p(max(c.predicted_cost, COST_FLOOR))
                                                    for c in self.changes]]),
        )  # fmt: skip


@dataclass(frozen=True)
class Steps:
    """What a lineage carries: catalog mechanism names and free-form change keys."""

    genes: frozenset[str] = frozenset()
    changes: frozenset[str] = frozenset()

    def plus(
        self, names: Iterable[str] = (), change: str = "", space: Space = CATALOG_SPACE
    ) -> Steps:
        """These steps with the genes `names` applied on top (each displacing one that sets
        the same knob: the later edit overrides it) and the change `change` added."""
        new = frozenset(names)
        displaced = {n for group in space.exclusive if new & set(group) for n in group} - new
        return Steps((self.genes - displaced) | new, self.changes | {change} - {""})


def steps_of(
    features: Features, candidate_id: str, candidates: Mapping[str, Candidate]
) -> Steps | None:
    """The genes and free-form changes along the candidate's lineage, oldest
    first; None when a step on it is neither (a merge, or a change `features` lacks)."""
    free = {c.key for c in features.changes}
    steps = Steps()
    for cid in reversed(lineage(candidate_id, candidates)):
        names = parts(candidates[cid].mechanism)
        if cid in free:
            steps = steps.plus(change=cid)
        elif names <= set(features.space.names):
            steps = steps.plus(names, space=features.space)
        else:
            return None
    return steps


def genome_in(
    features: Features, candidate_id: str, candidates: Mapping[str, Candidate]
) -> npt.NDArray[np.bool_] | None:
    """The candidate's genome (see `steps_of`), or None."""
    steps = steps_of(features, candidate_id, candidates)
    return None if steps is None else features.bits(set(steps.genes), set(steps.changes))


def measured_changes(
    plans: Iterable[Mapping[Any, Any]], candidates: Mapping[str, Candidate]
) -> tuple[Change, ...]:
    """The free-form changes that made a candidate (the plan row its edit recorded: same
    parent, name and epoch), keyed by that candidate, in creation order; `plans` are the
    ledger's plan rows (`Ledger.plans`, as records)."""
    out: dict[str, Change] = {}
    for row in (p for p in plans if p.get("kind") == "free"):
        child = candidates.get(str(row["child_id"]))
        made = child is not None and (child.parent, child.mechanism, child.epoch) == (
            row["parent_id"], row["mechanism"], row["epoch"]
        )  # fmt: skip
        if child is not None and made and child.id not in out:
            out[child.id] = Change(
                child.id, float(row["predicted_pass"]), float(row["predicted_cost"]),
                _levers(row["levers"]),
            )  # fmt: skip
    return tuple(out[k] for k in sorted(out))


def _levers(text: object) -> tuple[str, ...]:
    """The plan row's levers (a JSON list; empty in ledgers from before they were kept)."""
    return tuple(str(x) for x in json.loads(text)) if isinstance(text, str) and text else ()
