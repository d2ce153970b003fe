"""`harnesspro-catalog` (the default before the loop): screen the levers, model their
effects, propose by expected hypervolume gain.

A candidate is a set of catalog mechanisms applied to the seed (planner/space.py). The first
epoch screens: a balanced design (planner/screening.py) puts each mechanism in about half of
the candidates. Every later epoch fits the surrogate (planner/surrogate.py) to every scored
coreset rollout - pass and log cost on the mechanism bits, with the task as intercept - and
proposes, among every genome of the catalog, those with the largest expected gain in
hypervolume of the front under the posterior (planner/hvgain.py): one per directive, each
directive a region of the front (cheap end, knee, strong end), each plan naming its region.
The candidates are made and journaled as NSGA-II's are (seed + mechanisms, catalog order).
With improver `llm`, see strategies/llm_gain.py.
"""

from __future__ import annotations

import numpy as np

from harnesspro.core.records import Candidate, Plan
from harnesspro.evolution.improve import improve
from harnesspro.evolution.strategies import Plain, llm_gain
from harnesspro.evolution.strategies.nsga2 import journaled_children
from harnesspro.evolution.strategies.proposals import forecast_of, plan_of, propose
from harnesspro.evolution.strategies.state import SearchState, search_state, seed_space
from harnesspro.improvers.planner.features import Features
from harnesspro.improvers.planner.measured import measured_genomes, surrogate_of
from harnesspro.improvers.planner.screening import screening_design
from harnesspro.run.context import SEED_ID, RunContext

MAX_SCREEN, MIN_SCREEN = 9, 4


def screening_rows(affordable: int | None) -> int:
    """Rows of the screening: two thirds of the candidates the cap affords, 4-9 (9 uncapped)."""
    if affordable is None:
        return MAX_SCREEN
    return min(MAX_SCREEN, max(MIN_SCREEN, affordable * 2 // 3))


def screening_plans(state: SearchState) -> list[Plan]:
    """The first epoch: a balanced design; two thirds of what the cap affords (4-9 rows)."""
    space, rows = state.space, screening_rows(state.affordable)
    every = space.all_genomes()[1:]  # the non-empty genomes (the first row is the seed's)
    design = (
        every  # a space this small is screened whole
        if len(every) <= rows
        else screening_design(
            rows, len(space), space.exclusive_indices(), state.run_seed * 1000 + state.epoch
        )
    )
    rows = len(design)
    return [
        Plan(SEED_ID, "balanced", space.name_of(bits), f"screening row {i + 1} of {rows}: each "
             "mechanism in about half of the rows", 0.0, 0.0, levers=space.levers_of(bits))
        for i, bits in enumerate(design)
    ]  # fmt: skip


def gain_plans(state: SearchState, rounds: int) -> list[Plan]:
    """`rounds` x one plan per region of the front, by expected hypervolume gain."""
    features = Features(space=state.space)
    model, genomes = surrogate_of(
        state.rollouts, state.coreset, state.candidates, state.scores, features
    )
    rng = np.random.default_rng(state.run_seed * 1000 + state.epoch)
    known = np.array(list(genomes.values()), dtype=bool)
    proposal = propose(model, known, state.space.all_genomes(), state.ref_cost, rounds, rng)
    return [
        plan_of(
            pick,
            proposal.pool[pick.index],
            forecast_of(state, model, proposal, pick, rng),
            state.space,
        )  # fmt: skip
        for pick in proposal.picks
    ]


def plans_for(state: SearchState) -> list[Plan]:
    """The epoch's plans: the screening design until a catalog candidate is measured, then
    by expected hypervolume gain (three rounds when uncapped, else one)."""
    if not len(state.space):
        return []  # nothing declared: only written changes (improver llm) apply
    measured = measured_genomes(state.candidates, sorted(state.scores), Features(space=state.space))
    if set(measured) <= {SEED_ID}:
        return screening_plans(state)
    return gain_plans(state, 3 if state.affordable is None else 1)


class ExpectedGain(Plain):
    """Journaled as NSGA-II is: the epoch's plans once drawn, then each edit. With improver
    'llm' the screening is the same; later epochs the llm planner proposes and the surrogate
    chooses among its plans and the catalog's combinations (strategies/llm_gain.py)."""

    shrunk = True

    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        if ctx.config.evolution.improver == "llm" and not screens(ctx, epoch):
            return improve(ctx, epoch, parents, wrap=llm_gain.chooser(ctx, epoch))
        return journaled_children(ctx, epoch, lambda c, e: plans_for(search_state(c, e)))


def screens(ctx: RunContext, epoch: int) -> bool:
    """With improver 'llm': whether this epoch is the screening (the first epoch, on a
    harness that declares knobs)."""
    return epoch == 1 and len(seed_space(ctx)) > 0
