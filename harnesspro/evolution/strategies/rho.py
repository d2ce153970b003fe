"""`rho`: single-objective search as in RHO - the same analyzer and editor, plans ranked by
predicted pass-rate gain alone (the three best per parent), and selection on pass rate only
(`single_objective`: every operating point is the best pass rate)."""

from __future__ import annotations

import random
from collections.abc import Mapping

from harnesspro.core.records import DIRECTIVES, Candidate, Plan
from harnesspro.evolution.strategies import Plain
from harnesspro.evolution.strategies.catalog_roles import propose_with, untried
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.improvers.planner.catalog import predict
from harnesspro.improvers.planner.evidence import beliefs_from
from harnesspro.run.context import RunContext


def pass_first_plans(
    inputs: ImproverInputs, prevalences: Mapping[str, Mapping[str, float]], rng: random.Random
) -> list[Plan]:
    plans = []
    beliefs = beliefs_from(inputs.memory)
    for parent in inputs.parents:
        options = [
            predict(CATALOG[m], prevalences[parent], beliefs) for m in untried(inputs, parent)
        ]
        options.sort(key=lambda p: (-p.d_pass, p.mechanism.name))  # cost is not an objective
        plans += [
            Plan(
                parent,
                "performance-first",
                p.mechanism.name,
                p.mechanism.summary,
                round(p.d_pass, 4),
                round(p.d_cost, 4),
            )
            for p in options[: len(DIRECTIVES)]
        ]
    return plans


class SingleObjective(Plain):
    single_objective = True

    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        return propose_with(ctx, epoch, parents, pass_first_plans)
