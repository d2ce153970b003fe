"""The default strategy with improver `llm`: the planner proposes, the surrogate chooses.

After the screening (the first epoch, as with the catalog improver) the llm planner plans for
the selected parents as harnesspro-v1's does: changes written in words with their predicted
effects, or catalog examples. Each plan becomes a genome of the pool the surrogate scores: its
parent's features plus its own (a new free-form change priored on the planner's prediction,
with the levers it declares: planner/features.py; or the catalog mechanisms it names), beside
every combination of the catalog applied to the seed. The planner's plans and the catalog's
combinations compete for the same budget by expected hypervolume gain, one per region of the
front (three per region without a rollout cap), and only the chosen ones are edited: free-form
plans by the llm editor, catalog ones by the catalog's own edit, so a catalog bit means the
same in every candidate. A chosen plan keeps the planner's predictions (its change's prior, and
what its verdict is judged on); its rationale adds the region and the surrogate's forecast.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from harnesspro.core.records import Candidate, Diagnosis, Plan
from harnesspro.evolution.strategies.nsga2 import apply_genome
from harnesspro.evolution.strategies.proposals import (
    REGION,
    Forecast,
    forecast_of,
    plan_of,
    propose,
)
from harnesspro.evolution.strategies.state import SearchState, search_state, seed_space
from harnesspro.harness.repo import HarnessRepo
from harnesspro.improvers.analyzer import Fallbacks
from harnesspro.improvers.editor.apply import Edit, apply_plan
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.improvers.planner.features import Change, Features, measured_changes, steps_of
from harnesspro.improvers.planner.hvgain import Pick
from harnesspro.improvers.planner.measured import surrogate_of
from harnesspro.improvers.planner.space import parts
from harnesspro.improvers.roles.dispatch import Improver
from harnesspro.run.context import RunContext


def catalog_applies(ctx: RunContext) -> bool:
    """Whether the run's seed declares knobs (so catalog recipes or knob values apply)."""
    return len(seed_space(ctx)) > 0


@dataclass(frozen=True)
class Choice:
    """What the choice among the planner's plans is made from."""

    state: SearchState
    changes: tuple[Change, ...]  # the measured free-form changes, by the candidate they made
    with_catalog: bool  # the catalog's combinations are in the pool


def chooser(ctx: RunContext, epoch: int) -> Callable[[Improver], Improver]:
    """Wraps the llm roles so that the surrogate chooses which of the planner's plans (and of
    the catalog's combinations) are edited."""
    return lambda roles: SurrogateRoles(roles, ctx, epoch)


def choice_of(ctx: RunContext, epoch: int) -> Choice:
    state = search_state(ctx, epoch)
    changes = measured_changes(ctx.ledger.plan_rows(), state.candidates)
    return Choice(state, changes, catalog_applies(ctx))


@dataclass
class SurrogateRoles:
    """The llm roles, with the plans chosen by expected hypervolume gain (gathered only when
    the epoch plans, not when a resumed epoch reuses its journaled plans) and catalog plans
    edited by the catalog."""

    inner: Improver
    ctx: RunContext
    epoch: int

    def diagnose(self, inputs: ImproverInputs) -> tuple[list[Diagnosis], Fallbacks]:
        return self.inner.diagnose(inputs)

    def plan(
        self,
        inputs: ImproverInputs,
        diagnoses: list[Diagnosis],
        prevalences: Mapping[str, Mapping[str, float]],
    ) -> tuple[list[Plan], Fallbacks]:
        planned, fell_back = self.inner.plan(inputs, diagnoses, prevalences)
        return chosen_plans(choice_of(self.ctx, self.epoch), planned), fell_back

    def edit(
        self,
        plan: Plan,
        parent: Candidate,
        repo: HarnessRepo,
        existing: list[Candidate],
        new_id: str,
        epoch: int,
    ) -> Edit:
        if plan.kind == "catalog":
            backend = self.ctx.config.sandbox.backend
            return apply_plan(plan, parent, repo, existing, new_id, epoch, apply_genome, backend)
        return self.inner.edit(plan, parent, repo, existing, new_id, epoch)


def proposal_key(index: int) -> str:
    return f"plan-{index}"


def planned_genomes(
    features: Features, planned: Sequence[Plan], candidates: Mapping[str, Candidate]
) -> tuple[npt.NDArray[np.bool_], list[int]]:
    """The genome of each plan the surrogate can place (rows) and the plan's index: its
    parent's steps plus its own change, or plus the catalog mechanisms it names."""
    rows, sources = [], []
    for i, plan in enumerate(planned):
        parent = steps_of(features, plan.parent_id, candidates)
        names = parts(plan.mechanism)
        if parent is None or (plan.kind != "free" and not names <= set(features.space.names)):
            continue
        steps = (
            parent.plus(change=proposal_key(i))
            if plan.kind == "free"
            else parent.plus(names, space=features.space)
        )
        rows.append(features.bits(set(steps.genes), set(steps.changes)))
        sources.append(i)
    width = len(features.names)
    return np.array(rows, dtype=bool).reshape(len(rows), width), sources


@dataclass(frozen=True)
class Pool:
    """What the surrogate chooses from: the catalog's combinations on the seed (rows first),
    then the planner's plans it can place, each with its index in the planner's list."""

    catalog: npt.NDArray[np.bool_]
    mine: npt.NDArray[np.bool_]
    sources: list[int]

    def without(self, row: int) -> Pool:
        """The pool less the planner's plan at `row` of `mine`."""
        return Pool(self.catalog, np.delete(self.mine, row, axis=0),
                    self.sources[:row] + self.sources[row + 1 :])  # fmt: skip


def pool_of(choice: Choice, features: Features, planned: Sequence[Plan]) -> Pool:
    mine, sources = planned_genomes(features, planned, choice.state.candidates)
    width = len(features.names)
    catalog = np.zeros((0, width), dtype=bool)
    if choice.with_catalog:
        base = features.space.all_genomes()
        catalog = np.hstack([base, np.zeros((len(base), width - len(features.space)), dtype=bool)])
    return Pool(catalog, mine, sources)


def chosen_plans(choice: Choice, planned: list[Plan]) -> list[Plan]:
    """The plans the expected hypervolume gain chooses among the planner's and the catalog's:
    first the planner's plan with the largest gain (a new change cannot be judged unmeasured,
    and a one-step gain undervalues what measuring it teaches), then one per region left
    among both; all the planner's plans when the surrogate can place none and there is no
    catalog."""
    state = choice.state
    proposed = tuple(
        Change(proposal_key(i), p.predicted_pass, p.predicted_cost, p.levers)
        for i, p in enumerate(planned)
        if p.kind == "free"
    )
    features = Features(choice.changes + proposed, state.space)
    model, genomes = surrogate_of(
        state.rollouts, state.coreset, state.candidates, state.scores, features
    )
    pool = pool_of(choice, features, planned)
    if not len(pool.mine) and not len(pool.catalog):
        return planned
    rng = np.random.default_rng(state.run_seed * 1000 + state.epoch)
    known = np.array(list(genomes.values()), dtype=bool)
    out, taken = [], ""
    first = propose(model, known, pool.mine, state.ref_cost, 1, rng) if len(pool.mine) else None
    if first is not None and first.picks:
        best = max(first.picks, key=lambda p: p.gain)
        row = int(first.rows[best.index])
        forecast = forecast_of(state, model, first, best, rng)
        out.append(planner_plan(planned[pool.sources[row]], best, forecast))
        known, pool, taken = (
            np.vstack([known, pool.mine[row]]),
            pool.without(row),
            best.band.directive,
        )
    both = np.vstack([pool.catalog, pool.mine])
    if not len(both):
        return out
    rest = propose(model, known, both, state.ref_cost, 3 if state.affordable is None else 1, rng)
    for pick in rest.picks:
        if pick.band.directive == taken:
            taken = ""  # that region had its pick from the planner's plans
            continue
        row, forecast = int(rest.rows[pick.index]), forecast_of(state, model, rest, pick, rng)
        if row < len(pool.catalog):
            bits = pool.catalog[row][: len(features.space)]
            out.append(plan_of(pick, bits, forecast, features.space))
        else:
            out.append(planner_plan(planned[pool.sources[row - len(pool.catalog)]], pick, forecast))
    return out


def planner_plan(plan: Plan, pick: Pick, forecast: Forecast) -> Plan:
    """The planner's plan as chosen: its region's directive, the planner's predictions kept,
    the region, expected gain and the surrogate's forecast added to its rationale."""
    why = (
        f"chosen to fill the {REGION[pick.band.directive]} of the front: expected hypervolume "
        f"gain {pick.gain:.3g}; surrogate forecast against the seed: {forecast.describe()}"
    )
    return replace(plan, directive=pick.band.directive, rationale=f"{plan.rationale} | {why}")
