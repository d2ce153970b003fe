"""The validation split: each epoch the selected candidates get rollouts on it, graded by
frozen synthesized tests written from the seed's validation rollouts exactly as for the
coreset. Only aggregates leave this module: improvers never read validation rollouts. With
`selection.validated` the selector chooses on coreset and validation scores pooled."""

from __future__ import annotations

from harnesspro.core.metrics import on_split
from harnesspro.evaluation.engine import Evaluated
from harnesspro.evaluation.rollouts import evaluate
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.run.validation_scores import validation_ids


def attempts(ctx: RunContext, candidate_id: str) -> int:
    """Rollouts per validation task: `evaluation.validation_rollouts` (else G); the seed gets
    at least G, because its rollouts are the votes its frozen tests are written from."""
    g = ctx.config.evolution.rollouts_per_task
    n = ctx.config.evaluation.validation_rollouts
    n = g if n is None else n
    return max(n, g) if candidate_id == SEED_ID and n > 0 else n


def validate(ctx: RunContext, parents: list[str], epoch: int, cap: int | None) -> Evaluated:
    """Roll out `parents` on the validation tasks, the seed first, then the others, all
    within `cap` (whole candidates only); the epoch then freezes the validation tests
    (`seeded_tasks`) and scores the rollouts."""
    tasks = validation_ids(ctx)
    candidates = ctx.candidates()
    ran = 0
    skipped: list[str] = []
    notes: list[str] = []
    for cid in sorted(parents, key=lambda c: c != SEED_ID):
        if skipped:  # the cap stops scheduling: nothing after a candidate that did not fit
            skipped.append(cid)
            continue
        left = None if cap is None else cap - ran
        tries = range(attempts(ctx, cid))
        done = evaluate(ctx, [candidates[cid]], epoch, "validation", tasks, tries, left)
        ran, skipped = ran + done.ran, skipped + list(done.skipped)
        notes += done.notes
    return Evaluated(ran, tuple(skipped), tuple(notes))


def seeded_tasks(ctx: RunContext) -> list[str]:
    """The validation tasks the seed has rollouts on: one frozen test each is written from
    them (tasks already frozen are skipped, so later epochs add nothing)."""
    rows = on_split(ctx.ledger.rollout_rows(), "validation")
    return sorted({r.task_id for r in rows if r.candidate_id == SEED_ID})
