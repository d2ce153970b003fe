"""The validation split: each epoch the selected candidates get rollouts on it, graded by
frozen synthesized tests written from the seed's validation rollouts exactly as for the
coreset. Only aggregates leave this module: improvers never read validation rollouts. With
`selection.validated` the selector chooses on coreset and validation scores pooled."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from harnesspro.context import SEED_ID, RunContext
from harnesspro.engine import Evaluated, evaluate
from harnesspro.metrics import candidate_scores, on_split, scored
from harnesspro.records import Score
from harnesspro.testsynth.frozen import freeze_tests, score_pending


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


def attempts(ctx: RunContext, candidate_id: str) -> int:
    """Rollouts per validation task: `evaluation.validation_rollouts` (else G); the seed gets
    at least G, because its rollouts are the votes its frozen tests are written from."""
    g = ctx.config.evolution.rollouts_per_task
    n = ctx.config.evaluation.validation_rollouts
    n = g if n is None else n
    return max(n, g) if candidate_id == SEED_ID and n > 0 else n


def validate(ctx: RunContext, parents: list[str], epoch: int, cap: int | None) -> Evaluated:
    """Roll out `parents` on the validation tasks and grade them by frozen tests; the seed
    first, then the others, all within `cap` (whole candidates only)."""
    tasks = validation_ids(ctx)
    candidates = ctx.candidates()
    ran = 0
    skipped: list[str] = []
    for cid in sorted(parents, key=lambda c: c != SEED_ID):
        if skipped:  # the cap stops scheduling: nothing after a candidate that did not fit
            skipped.append(cid)
            continue
        left = None if cap is None else cap - ran
        tries = range(attempts(ctx, cid))
        done = evaluate(ctx, [candidates[cid]], epoch, "validation", tasks, tries, left)
        ran, skipped = ran + done.ran, skipped + list(done.skipped)
    rows = on_split(ctx.ledger.rollouts(), "validation")
    seeded = set(rows[rows["candidate_id"] == SEED_ID]["task_id"])
    # scorer.freeze_tests writes one test per task of ctx.splits.coreset from the seed's
    # rollouts on it; point it at the validation tasks the seed has rollouts on (it skips
    # tasks already frozen, so later epochs add nothing).
    freeze_tests(replace(ctx, splits=replace(ctx.splits, coreset=tuple(sorted(seeded)))))
    score_pending(ctx)
    return Evaluated(ran, tuple(skipped))


def validation_scores(ctx: RunContext) -> dict[str, Score]:
    """Validation-split aggregates (pass by the frozen tests) of every validated candidate."""
    rollouts = on_split(ctx.ledger.rollouts(), "validation")
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
    frame = scored(on_split(ctx.ledger.rollouts(), "validation"), ids).dropna(subset=["pass"])
    held = candidate_scores(frame, ids)
    counts = frame.groupby("candidate_id")["task_id"].nunique()  # tasks each one was scored on
    n_coreset = len(ctx.splits.coreset)
    return {
        cid: pool(s, held[cid], n_coreset, int(counts[cid])) if cid in held else s
        for cid, s in scores.items()
    }
