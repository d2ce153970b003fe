"""`no-planner` ablation: the method's three directives per parent, each filled with a random
catalog mechanism instead of the planner's choice from the diagnoses."""

from __future__ import annotations

import random
from collections.abc import Mapping

from harnesspro.context import RunContext
from harnesspro.disclosure import ImproverInputs
from harnesspro.records import DIRECTIVES, Candidate, Plan
from harnesspro.strategies.catalog_roles import propose_with, untried


def random_directive_plans(
    inputs: ImproverInputs, prevalences: Mapping[str, Mapping[str, float]], rng: random.Random
) -> list[Plan]:
    plans: list[Plan] = []
    for parent in inputs.parents:
        free = untried(inputs, parent)
        picks = rng.sample(free, min(len(DIRECTIVES), len(free)))
        plans += [
            Plan(parent, d, m, "random mechanism for the directive", 0.0, 0.0)
            for d, m in zip(DIRECTIVES, picks, strict=False)
        ]
    return plans


class NoPlanner:
    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        return propose_with(ctx, epoch, parents, random_directive_plans)
