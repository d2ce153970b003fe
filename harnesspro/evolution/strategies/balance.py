"""`balance`: one balanced directive per parent instead of three (the planner's own choice
under `balanced`); with the same rollout cap it runs more epochs."""

from __future__ import annotations

import random
from collections.abc import Mapping

from harnesspro.core.records import Candidate, Plan
from harnesspro.evolution.strategies import Plain
from harnesspro.evolution.strategies.catalog_roles import propose_with
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.improvers.planner.catalog import plan_all
from harnesspro.improvers.planner.evidence import beliefs_from
from harnesspro.run.context import RunContext


def balanced_plans(
    inputs: ImproverInputs, prevalences: Mapping[str, Mapping[str, float]], rng: random.Random
) -> list[Plan]:
    parents = [inputs.candidates[p] for p in inputs.parents]
    beliefs = beliefs_from(inputs.memory)
    plans = plan_all(parents, inputs.candidates, prevalences, inputs.scores, None, beliefs)
    return [p for p in plans if p.directive == "balanced"]


class Balance(Plain):
    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        return propose_with(ctx, epoch, parents, balanced_plans)
