"""Bootstrap uncertainty of candidate scores: confidence intervals on pass rate and cost per
task, and each candidate's probability of being non-dominated among the candidates compared.

Resampling is two-stage and paired. Each resample draws the tasks with replacement, the same
draw for every candidate because all of them ran on the same tasks with common random
numbers; then, per candidate and drawn task, it draws that candidate's attempts on the task
with replacement (as many as it has). With a coreset of ~10 tasks the task draw carries most
of the spread; sharing it keeps differences between candidates from being blurred by it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from harnesspro.core.ledger import rollout_frame
from harnesspro.core.records import RolloutRow

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
Verdict = Literal["pass", "official_pass"]
"""Which verdict a rollout passed by: the frozen tests' (the search) or the official tests'."""


@dataclass(frozen=True)
class Uncertainty:
    """A candidate's bootstrap intervals (NaN when unknown, e.g. an unpriced model's cost)."""

    candidate_id: str
    pass_rate_ci: tuple[float, float]
    cost_ci: tuple[float, float]
    p_nondominated: float


@dataclass(frozen=True)
class Samples:
    """Rollout outcomes as [candidate, task, attempt] arrays, packed at the front of the
    attempt axis and NaN-padded; `counts[c, t]` says how many are real."""

    candidate_ids: tuple[str, ...]
    passed: FloatArray
    cost: FloatArray
    counts: IntArray


def samples_from_rollouts(rows: Iterable[RolloutRow], pass_column: Verdict = "pass") -> Samples:
    """Pack rollouts (candidate, task, the verdict, cost) into Samples; unjudged ones are
    left out."""
    frame = rollout_frame(rows).dropna(subset=[pass_column])
    ids = tuple(sorted(map(str, frame["candidate_id"].unique())))
    tasks = sorted(map(str, frame["task_id"].unique()))
    width = int(frame.groupby(["candidate_id", "task_id"]).size().max()) if len(frame) else 1
    shape = (len(ids), len(tasks), width)
    passed, cost = np.full(shape, np.nan), np.full(shape, np.nan)
    counts = np.zeros(shape[:2], dtype=np.intp)
    row, col = {c: i for i, c in enumerate(ids)}, {t: i for i, t in enumerate(tasks)}
    for (cid, tid), group in frame.groupby(["candidate_id", "task_id"]):
        c, t, n = row[str(cid)], col[str(tid)], len(group)
        passed[c, t, :n] = group[pass_column].to_numpy(dtype=np.float64)
        cost[c, t, :n] = group["cost"].to_numpy(dtype=np.float64)
        counts[c, t] = n
    return Samples(ids, passed, cost, counts)


def resample(samples: Samples, n_resamples: int, seed: int) -> tuple[FloatArray, FloatArray]:
    """Bootstrap replicates of pass rate and cost per task, each of shape (resamples, C)."""
    rng = np.random.default_rng(seed)
    n_cand, n_tasks, width = samples.passed.shape
    tasks = rng.integers(0, n_tasks, size=(n_resamples, n_tasks))
    n = samples.counts[:, tasks][..., None]  # (C, B, T, 1)
    picks = np.minimum((rng.random((n_cand, n_resamples, n_tasks, width)) * n), width - 1)
    valid = np.arange(width) < n  # draw as many attempts as the candidate has on the task
    index = (np.arange(n_cand)[:, None, None, None], tasks[None, :, :, None], picks.astype(int))
    drawn = valid.sum(axis=(2, 3))

    def mean(values: FloatArray) -> FloatArray:
        total = np.where(valid, values[index], 0.0).sum(axis=(2, 3))
        out: FloatArray = np.divide(
            total, drawn, out=np.full(total.shape, np.nan), where=drawn > 0
        ).T
        return out

    return mean(samples.passed), mean(samples.cost)


def nondominated_share(pr: FloatArray, cost: FloatArray) -> FloatArray:
    """Per candidate, the share of replicates (rows) in which no other candidate is at least as
    good on both pass rate and cost and better on one; NaN replicates are left out."""
    p_i, p_j = pr[:, None, :], pr[:, :, None]
    c_i, c_j = cost[:, None, :], cost[:, :, None]
    # dominates[b, j, i]: candidate j dominates candidate i in replicate b.
    dominates = (p_j >= p_i) & (c_j <= c_i) & ((p_j > p_i) | (c_j < c_i))
    known = np.isfinite(pr) & np.isfinite(cost)
    free = ~dominates.any(axis=1) & known
    seen = known.sum(axis=0)
    share: FloatArray = np.divide(
        free.sum(axis=0), seen, out=np.full(pr.shape[1], np.nan), where=seen > 0
    )
    return share


def percentile_interval(values: FloatArray, level: float) -> FloatArray:
    """Per column, the central `level` percentile interval of the finite values: shape (C, 2)."""
    tail = (1.0 - level) / 2.0
    out = np.full((values.shape[1], 2), np.nan)
    for c in range(values.shape[1]):
        finite = values[:, c][np.isfinite(values[:, c])]
        if finite.size:
            out[c] = np.quantile(finite, [tail, 1.0 - tail])
    return out


def bootstrap(
    rows: Iterable[RolloutRow],
    pass_column: Verdict = "pass",
    n_resamples: int = 1000,
    level: float = 0.9,
    seed: int = 0,
) -> dict[str, Uncertainty]:
    """Intervals and P(non-dominated) for every candidate among scored rollouts."""
    samples = samples_from_rollouts(rows, pass_column)
    if not samples.candidate_ids:
        return {}
    pr, cost = resample(samples, n_resamples, seed)
    pr_ci, cost_ci = percentile_interval(pr, level), percentile_interval(cost, level)
    share = nondominated_share(pr, cost)
    return {
        cid: Uncertainty(
            cid,
            (float(pr_ci[i, 0]), float(pr_ci[i, 1])),
            (float(cost_ci[i, 0]), float(cost_ci[i, 1])),
            float(share[i]),
        )
        for i, cid in enumerate(samples.candidate_ids)
    }
