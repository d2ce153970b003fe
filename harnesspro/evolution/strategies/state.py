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
    paid: int | None = None
    """Candidates the rollout cap pays for over the whole run, the seed and the
    confirmation's reserve aside (None: uncapped)."""


def seed_space(ctx: RunContext) -> Space:
    """The search space of the run's seed harness: the catalog mechanisms its knobs admit and
    its declared knob values."""
    return space_of((ctx.config.harness.seed or seed_template()).resolve())


def affordable(ctx: RunContext, spent: int) -> int | None:
    """Candidates `evaluation.max_rollouts` still pays for after `spent` search rollouts, bar
    the confirmation's reserve (None: uncapped)."""
    cap = ctx.config.evaluation.max_rollouts
    if cap is None:
        return None
    per = len(ctx.splits.coreset) * ctx.config.evolution.rollouts_per_task
    kept = ctx.config.evolution.confirm_reserve(len(ctx.splits.coreset))
    return max(0, cap - spent - kept) // per


def paid_candidates(ctx: RunContext) -> int | None:
    """Candidates the rollout cap pays for over the whole run, bar the seed (None: uncapped)."""
    whole = affordable(ctx, 0)
    return None if whole is None else max(0, whole - 1)


def search_state(ctx: RunContext, epoch: int) -> SearchState:
    """The strategy's input, read from the run's ledger."""
    capped = ctx.config.evaluation.max_rollouts is not None
    spent = len(search_rollouts(ctx.ledger.rollout_rows())) if capped else 0
    left, paid = affordable(ctx, spent), paid_candidates(ctx)
    stored = ctx.ledger.meta(HV_REF_KEY)
    return SearchState(
        epoch, ctx.config.seed, ctx.candidates(), ctx.scores(), tuple(ctx.scoring_rollouts()),
        tuple(ctx.splits.coreset), left, None if stored is None else float(stored),
        seed_space(ctx), paid,
    )  # fmt: skip
