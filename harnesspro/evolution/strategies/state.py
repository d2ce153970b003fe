"""What the genome strategies (the default and NSGA-II) plan from: a typed SearchState, gathered
from the run's ledger once per epoch by search_state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harnesspro.core.metrics import search_rollouts
from harnesspro.core.records import Candidate, RolloutRow, Score
from harnesspro.evolution.select_step import HV_REF_KEY
from harnesspro.improvers.planner.space import CATALOG_SPACE, Space, space_of
from harnesspro.run.context import RunContext, seed_template


@dataclass(frozen=True)
class SearchState:
    """What a genome strategy plans from, gathered from the ledger by `search_state`."""

    epoch: int
    run_seed: int
    candidates: Mapping[str, Candidate]
    scores: Mapping[str, Score]  # coreset scores of every complete candidate
    rollouts: tuple[RolloutRow, ...]  # the scoring rollouts (coreset, after any refresh)
    coreset: tuple[str, ...]
    affordable: int | None
    """Candidates the rollout cap still pays for, bar the confirmation's reserve (None:
    uncapped)."""
    ref_cost: float | None = None
    """The run's fixed hypervolume reference cost (fixed by the seed's selection), None before."""
    space: Space = CATALOG_SPACE
    """The genes of the run's seed harness (its declared knobs)."""


def seed_space(ctx: RunContext) -> Space:
    """The search space of the run's seed harness: the catalog mechanisms its knobs admit and
    its declared knob values."""
    return space_of((ctx.config.harness.seed or seed_template()).resolve())


def search_state(ctx: RunContext, epoch: int) -> SearchState:
    """The strategy's input, read from the run's ledger."""
    cap, left = ctx.config.evaluation.max_rollouts, None
    if cap is not None:
        spent = len(search_rollouts(ctx.ledger.rollout_rows()))
        per = len(ctx.splits.coreset) * ctx.config.evolution.rollouts_per_task
        kept = ctx.config.evolution.confirm_reserve(len(ctx.splits.coreset))
        left = max(0, cap - spent - kept) // per
    stored = ctx.ledger.meta(HV_REF_KEY)
    return SearchState(
        epoch, ctx.config.seed, ctx.candidates(), ctx.scores(), tuple(ctx.scoring_rollouts()),
        tuple(ctx.splits.coreset), left, None if stored is None else float(stored),
        seed_space(ctx),
    )  # fmt: skip
