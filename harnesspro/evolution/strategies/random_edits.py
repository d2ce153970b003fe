"""`random`: random catalog edits on random survivors, as many plans per epoch as the
method makes (three per parent); no analyzer or planner judgement is used."""

from __future__ import annotations

import random
from collections.abc import Mapping

from harnesspro.core.records import DIRECTIVES, Candidate, Plan
from harnesspro.evolution.strategies import Plain
from harnesspro.evolution.strategies.catalog_roles import propose_with, untried
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.run.context import RunContext


def random_plans(
    inputs: ImproverInputs, prevalences: Mapping[str, Mapping[str, float]], rng: random.Random
) -> list[Plan]:
    plans: list[Plan] = []
    for _ in range(len(DIRECTIVES) * len(inputs.parents)):
        parent = rng.choice(sorted(inputs.parents))
        taken = {p.mechanism for p in plans if p.parent_id == parent}
        free = [m for m in untried(inputs, parent) if m not in taken]
        if free:
            plans.append(Plan(parent, "balanced", rng.choice(free), "random edit", 0.0, 0.0))
    return plans


class RandomEdits(Plain):
    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        return propose_with(ctx, epoch, parents, random_plans)
