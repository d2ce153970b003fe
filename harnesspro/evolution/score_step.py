"""The epoch's score step: the rollouts with no verdict yet, read from the ledger and the run
folder as PendingRollout records, scored by evaluation/scoring.py (verdicts), the verdicts
recorded; then, with `evolution.consensus`, the frozen tests refined from every scored search
rollout (evaluation/refinement.py), the rollouts of tasks whose refinement changed graded
again."""

from __future__ import annotations

from harnesspro.evaluation.refinement import refine_tests
from harnesspro.evaluation.scoring import (
    PendingRollout,
    checks_sandbox,
    load_current,
    load_frozen,
    verdicts,
)
from harnesspro.evolution.strategies import make_strategy
from harnesspro.run.context import RunContext


def score_pending(ctx: RunContext) -> None:
    """The score step: every rollout with no verdict yet, read from the ledger and the run
    folder, scored (`verdicts`) and its verdict recorded; infrastructure errors are never scored
    (the work was cut short by our side), nor rollouts of tasks with no scorable test."""
    current = load_current(ctx)
    tests = {t: test for t, test in current.items() if not test.unscorable}
    rollouts = ctx.ledger.rollouts()
    judge_only = make_strategy(ctx.config.evolution.strategy).judge_only
    if judge_only:
        tasks = [*ctx.splits.coreset, *ctx.splits.validation]
        rows = rollouts[rollouts["pass"].isna() & rollouts["task_id"].isin(tasks)]
    else:
        fault = rollouts["status"] == "infra_error"
        rows = rollouts[rollouts["pass"].isna() & rollouts["task_id"].isin(list(tests)) & ~fault]
    pending = (
        PendingRollout(
            key,
            task_id,
            ctx.run.chat_log(key),
            str(status),
            None if judge_only else ctx.run.workspace(key),
        )
        for key, task_id, status in zip(rows["key"], rows["task_id"], rows["status"], strict=True)
    )
    sandbox = checks_sandbox(ctx)
    judged = ctx.config.evolution.judge_trajectory
    ctx.ledger.set_passes(verdicts(pending, tests, sandbox, judged, judge_only))
    if ctx.config.evolution.consensus and not judge_only:
        refine_tests(ctx, load_frozen(ctx), current, sandbox, judged)
