"""The catalog improver with its planning step swapped: the shared body of the catalog
baselines (rho, balance, no-planner, random). Analyzer and editor stay the method's own, and
every plan goes through editor/apply.py:apply_plan, so trees are deduplicated the same way."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from harnesspro.core.records import Candidate, Diagnosis, Plan
from harnesspro.evolution.improve import run_roles
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.improvers.analyzer import Fallbacks
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.improvers.planner.catalog import excluded
from harnesspro.improvers.roles.dispatch import CatalogImprover
from harnesspro.run.context import RunContext
from harnesspro.run.disclosure import improver_inputs

# (inputs, prevalences per parent, rng) -> plans
PlanFn = Callable[[ImproverInputs, Mapping[str, Mapping[str, float]], random.Random], list[Plan]]


class PlannedImprover(CatalogImprover):
    """Rule analyzer and catalog editor around a replacement planner."""

    def __init__(self, plan_fn: PlanFn, rng: random.Random, backend: str = "bubblewrap") -> None:
        super().__init__(backend)
        self.plan_fn, self.rng = plan_fn, rng

    def plan(
        self,
        inputs: ImproverInputs,
        diagnoses: list[Diagnosis],
        prevalences: Mapping[str, Mapping[str, float]],
    ) -> tuple[list[Plan], Fallbacks]:
        return self.plan_fn(inputs, prevalences, self.rng), {}


def propose_with(
    ctx: RunContext, epoch: int, parents: list[str], plan_fn: PlanFn
) -> list[Candidate]:
    """Run analyzer, `plan_fn` and the catalog editor over the disclosed inputs."""
    rng = random.Random(f"{ctx.config.seed}:{ctx.config.evolution.strategy}:{epoch}")
    inputs = improver_inputs(ctx, epoch, parents, diffs=False)
    return run_roles(ctx, inputs, PlannedImprover(plan_fn, rng, ctx.config.sandbox.backend))


def untried(inputs: ImproverInputs, parent: str) -> list[str]:
    """Catalog mechanisms the planner's own exclusion rule still allows on `parent`."""
    banned = excluded(parent, inputs.candidates, inputs.scores)
    return [name for name in CATALOG if name not in banned]
