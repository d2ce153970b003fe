"""`no-planner` ablation: the method's three directives per parent, each filled with random
catalog mechanisms instead of the planner's choice from the diagnoses - as many per plan as
the method bundles (`evolution.bundle`), on distinct levers, so only the choice differs."""

from __future__ import annotations

import random
from collections.abc import Mapping

from harnesspro.core.records import DIRECTIVES, Candidate, Plan
from harnesspro.evolution.strategies import Plain
from harnesspro.evolution.strategies.catalog_roles import PlanFn, propose_with, untried
from harnesspro.harness.mechanisms.catalog import CATALOG, Mechanism, bundle_name
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.run.context import RunContext


def random_bundle(free: list[str], size: int, rng: random.Random) -> str:
    """Up to `size` of `free`, drawn in random order, skipping a lever already drawn."""
    chosen: list[Mechanism] = []
    for name in rng.sample(free, len(free)):
        if len(chosen) < size and CATALOG[name].lever not in {m.lever for m in chosen}:
            chosen.append(CATALOG[name])
    return bundle_name(chosen)


def random_directive_plans(size: int) -> PlanFn:
    def plans_for(
        inputs: ImproverInputs, prevalences: Mapping[str, Mapping[str, float]], rng: random.Random
    ) -> list[Plan]:
        plans: list[Plan] = []
        for parent in inputs.parents:
            free = untried(inputs, parent)
            for directive in DIRECTIVES[: len(free)]:
                taken = {p.mechanism for p in plans if p.parent_id == parent}
                name = random_bundle(free, size, rng)
                if name not in taken:
                    plans.append(Plan(parent, directive, name, "random mechanisms", 0.0, 0.0))
        return plans

    return plans_for


class NoPlanner(Plain):
    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        size = ctx.config.evolution.plan_bundle
        return propose_with(ctx, epoch, parents, random_directive_plans(size))
