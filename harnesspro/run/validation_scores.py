"""Validation aggregates: which validation tasks are used, each candidate's score on them,
and that score pooled with its coreset score. Only aggregates: improvers may read these, never
a validation rollout (`harnesspro.evaluation.validation` runs them)."""

from __future__ import annotations

import hashlib

from harnesspro.core.metrics import candidate_scores, judged, on_split
from harnesspro.core.records import Score
from harnesspro.run.context import RunContext


def validation_ids(ctx: RunContext) -> tuple[str, ...]:
    """The validation tasks used: all, or a fixed hash-ordered sample of
    `evaluation.validation_tasks` (a prefix of the ids would favour some task families)."""
    ids = ctx.splits.validation
    limit = ctx.config.evaluation.validation_tasks
    if limit is None or limit >= len(ids):
        return ids

    def rank(task_id: str) -> str:
        return hashlib.sha256(f"{ctx.config.seed}:validation:{task_id}".encode()).hexdigest()

    return tuple(sorted(sorted(ids, key=rank)[:limit]))


def validation_scores(ctx: RunContext) -> dict[str, Score]:
    """Validation-split aggregates (pass by the frozen tests) of every validated candidate."""
    rollouts = on_split(ctx.ledger.rollout_rows(), "validation")
    return candidate_scores(rollouts, validation_ids(ctx))


def pool(coreset: Score, held: Score, n_coreset: int, n_held: int) -> Score:
    """One score over both task sets, each task weighing the same: the per-task means of
    the two splits weighted by their task counts (an unknown part stays unknown)."""
    total = n_coreset + n_held

    def mean(a: float, b: float) -> float:
        return (n_coreset * a + n_held * b) / total  # NaN in, NaN out: unknown stays unknown

    return Score(
        candidate_id=coreset.candidate_id,
        pass_rate=mean(coreset.pass_rate, held.pass_rate),
        cost_per_task=mean(coreset.cost_per_task, held.cost_per_task),
        tokens_per_task=mean(coreset.tokens_per_task, held.tokens_per_task),
        n_rollouts=coreset.n_rollouts + held.n_rollouts,
        calls_per_task=mean(coreset.calls_per_task, held.calls_per_task),
    )


def pooled_scores(ctx: RunContext, scores: dict[str, Score]) -> dict[str, Score]:
    """`scores` (coreset) with every validated candidate's validation score pooled in."""
    ids = validation_ids(ctx)
    rows = judged(on_split(ctx.ledger.rollout_rows(), "validation"), ids)
    held = candidate_scores(rows, ids)
    tasks: dict[str, set[str]] = {}  # the tasks each one was scored on
    for r in rows:
        tasks.setdefault(r.candidate_id, set()).add(r.task_id)
    n_coreset = len(ctx.splits.coreset)
    return {
        cid: pool(s, held[cid], n_coreset, len(tasks[cid])) if cid in held else s
        for cid, s in scores.items()
    }
