"""`random`: random catalog edits on random survivors, as many plans per epoch as the
method makes (three per parent), fewer under a rollout cap so that it pays for several
generations (strategies/generations.py); no analyzer or planner judgement is used."""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import partial

from harnesspro.core.records import DIRECTIVES, Candidate, Plan
from harnesspro.evolution.strategies import Plain
from harnesspro.evolution.strategies.catalog_roles import propose_with, untried
from harnesspro.evolution.strategies.generations import generation_size
from harnesspro.evolution.strategies.state import paid_candidates
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.run.context import RunContext


def random_plans(
    inputs: ImproverInputs,
    prevalences: Mapping[str, Mapping[str, float]],
    rng: random.Random,
    paid: int | None = None,
) -> list[Plan]:
    """Up to three plans a parent, as many as a generation holds under the cap (`paid`
    candidates over the run)."""
    plans: list[Plan] = []
    for _ in range(generation_size(len(DIRECTIVES) * len(inputs.parents), paid)):
        parent = rng.choice(sorted(inputs.parents))
        taken = {p.mechanism for p in plans if p.parent_id == parent}
        free = [m for m in untried(inputs, parent) if m not in taken]
        if free:
            plans.append(Plan(parent, "balanced", rng.choice(free), "random edit", 0.0, 0.0))
    return plans


class RandomEdits(Plain):
    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        paid = paid_candidates(ctx)
        return propose_with(ctx, epoch, parents, partial(random_plans, paid=paid))
