"""Racing (`evolution.racing`): new candidates get attempt 0 on every coreset task first;
those dominated with high probability by a fully evaluated candidate get nothing more, the
rest get attempts 1..G-1. "With high probability": the candidate's pass rate is below the
rival's even at its 90% upper bound (Beta posterior over its task verdicts) and its cost
per task above the rival's even at its 90% lower bound (normal approximation)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import betaincinv

from harnesspro.core.ledger import rollout_frame
from harnesspro.core.metrics import judged
from harnesspro.core.records import Candidate
from harnesspro.evaluation.engine import Evaluated
from harnesspro.evaluation.rollouts import evaluate
from harnesspro.run.context import RunContext

LEVEL = 0.9


def dominated_whp(
    passes: Sequence[float], costs: Sequence[float], rivals: Sequence[tuple[float, float]]
) -> bool:
    """Whether some rival (pass rate, cost per task) beats both bounds of these verdicts."""
    n = len(passes)
    if n == 0 or not all(math.isfinite(c) for c in costs):
        return False  # unknown costs: never stop spending on a guess
    # the Beta posterior's LEVEL quantile (scipy.special: a fifth of scipy.stats' import time)
    upper_pass = float(betaincinv(1 + sum(passes), 1 + n - sum(passes), LEVEL))
    spread = float(np.std(costs, ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    lower_cost = float(np.mean(costs)) - 1.2816 * spread  # one-sided 90% normal quantile
    return any(p >= upper_pass and c <= lower_cost for p, c in rivals)


def race_first(
    ctx: RunContext, children: list[Candidate], epoch: int, cap: int | None
) -> Evaluated:
    """Evaluate `children` within `cap`: every attempt when racing is off (or G = 1), else
    attempt 0 only; the epoch scores these before `race_rest`."""
    g = ctx.config.evolution.rollouts_per_task
    if not ctx.config.evolution.racing or g == 1:
        return evaluate(ctx, children, epoch, cap=cap)
    return evaluate(ctx, children, epoch, attempts=[0], cap=cap)


def race_rest(ctx: RunContext, children: list[Candidate], epoch: int, cap: int | None) -> Evaluated:
    """Racing's second half, on attempt 0's scored rollouts: attempts 1..G-1 for the
    children not dominated with high probability by a fully evaluated candidate."""
    g = ctx.config.evolution.rollouts_per_task
    if not ctx.config.evolution.racing or g == 1:
        return Evaluated(0)
    frame = rollout_frame(judged(ctx.ledger.rollout_rows(), ctx.splits.coreset))
    full = len(ctx.splits.coreset) * g
    stats = frame.groupby("candidate_id").agg(
        n=("pass", "size"), p=("pass", "mean"), c=("cost", "mean")
    )
    rows = stats[stats["n"] >= full]
    rivals = list(zip(rows["p"].astype(float), rows["c"].astype(float), strict=True))
    alive = []
    notes = []
    for child in children:
        mine = frame[frame["candidate_id"] == child.id]
        if mine.empty:
            continue  # left out by the cap
        if dominated_whp(mine["pass"].astype(float).tolist(), mine["cost"].tolist(), rivals):
            notes.append(f"racing: {child.id} dominated after attempt 0; stopped")
        else:
            alive.append(child)
    return Evaluated(0, (), tuple(notes)) + evaluate(
        ctx, alive, epoch, attempts=range(1, g), cap=cap
    )
