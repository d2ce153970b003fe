"""Held-out evaluation, only after evolution ends: the seed and the final lite/medium/heavy on
the test split with the official tests, K attempts per task.

Reported per harness: pass rate, pass@K, $/task, tokens, latency and the normalised gain
g = (E(H+) - E(H0)) / (1 - E(H0)) against the seed, where E is the test pass rate.

Resolution band: the seed gets 2K attempts per task, i.e. two independent K-attempt scorings
(attempts 0..K-1 and K..2K-1). Their median per-task discrepancy is reported, but ties are
judged on the whole-split pass rate, so the band that decides them is the median whole-split
discrepancy over every balanced way of dealing the 2K attempts into two scorings of K (the
0..K-1 / K..2K-1 deal is one of them). When most tasks always pass or always fail, the
per-task median is 0 even though whole-split scores still move; this band does not hide that.
A harness whose pass rate is within the band of the seed's is a tie, not a ranking.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numpy as np
from rich.console import Console

from harnesspro.core.config import load_config
from harnesspro.core.ledger import rollout_frame
from harnesspro.core.metrics import Shortfall, known_mean, on_split, scored, shortfalls
from harnesspro.core.progress import SILENT, Progress
from harnesspro.core.records import Candidate, RolloutRow
from harnesspro.core.uncertainty import Uncertainty, bootstrap
from harnesspro.evaluation.resolution import (
    UNKNOWN_BAND,
    Band,
    attempt_matrix,
    resolution_band,
    versus_label,
)
from harnesspro.evaluation.rollouts import evaluate
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.run.folder import RunFolder
from harnesspro.run.operating_points import RunNotFound


@dataclass(frozen=True)
class HarnessResult:
    """One harness on the test split (official tests, attempts 0..K-1)."""

    harness: str  # seed, lite, medium or heavy
    candidate_id: str
    tasks: int
    rollouts: int
    pass_rate: float
    pass_rate_ci: tuple[float, float]
    pass_at_k: float
    cost_per_task: float
    cost_ci: tuple[float, float]
    tokens_per_task: float
    latency_s: float
    gain: float | None  # None when the seed already passes everything, or is incomplete
    versus_seed: str
    """seed, better, tie or worse (ties: inside the resolution band); incomplete (this
    harness misses a test task x attempt) or unknown (the seed does)."""
    missing: int = 0
    """Test task x attempts without an official verdict: when any, its figures are NaN."""


"""The band of an incomplete seed: not measured on part of its attempts."""


@dataclass(frozen=True)
class FinalReport:
    attempts: int
    confidence: float
    tasks: tuple[str, ...]
    band: Band
    band_gain: float | None
    """The whole-split band in units of g: band / (1 - E(H0))."""
    harnesses: tuple[HarnessResult, ...]
    incomplete: tuple[Shortfall, ...] = ()
    """Harnesses missing an official verdict on a test task x attempt (the seed on any of
    its 2K): left out of the figures, never scored on part of the split."""


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n attempts with c successes: 1 - C(n-c, k) / C(n, k) (k <= n)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def normalised_gain(e_plus: float, e_seed: float) -> float | None:
    """g = (E(H+) - E(H0)) / (1 - E(H0)); None when the seed leaves no room (E(H0) = 1)."""
    if e_seed >= 1.0:
        return None
    return (e_plus - e_seed) / (1.0 - e_seed)


def pass_rate(rows: Iterable[RolloutRow]) -> float:
    """The mean of the per-task official pass rates (NaN without rollouts)."""
    frame = rollout_frame(rows)
    return float(frame.groupby("task_id")["official_pass"].mean().mean())


def held_out_shortfalls(
    rollouts: Iterable[RolloutRow],
    ids: Sequence[str],
    tasks: Sequence[str],
    attempts: int,
    seed_id: str,
) -> dict[str, Shortfall]:
    """Harnesses missing an official verdict on a test task x attempt 0..K-1 (the seed:
    0..2K-1, the band needs them all); infrastructure errors count as missing."""
    rows = on_split(rollouts, "test")
    rows = [r for r in rows if r.status == "infra_error" or r.official_pass is not None]
    found = shortfalls(rows, [i for i in ids if i != seed_id], tasks, range(attempts))
    found.update(shortfalls(rows, [seed_id], tasks, range(2 * attempts)))
    return found


def held_out(rollouts: Iterable[RolloutRow], tasks: Sequence[str]) -> list[RolloutRow]:
    """Test-split rollouts on `tasks` with an official verdict (infra faults never count)."""
    return [r for r in scored(on_split(rollouts, "test"), tasks) if r.official_pass is not None]


def of(rows: Iterable[RolloutRow], cid: str) -> list[RolloutRow]:
    """One candidate's rollouts."""
    return [r for r in rows if r.candidate_id == cid]


def summarise(rows: Sequence[RolloutRow], k: int) -> dict[str, float | int]:
    """Pass rate (mean of per-task rates), pass@k (per task, averaged; pass@n on a task with
    n < k attempts), cost, tokens and latency per task (means over rollouts) of one harness's
    rollouts; `final_report` reports them only for a harness with every task x attempt."""
    frame = rollout_frame(rows)
    per_task = frame.groupby("task_id")["official_pass"].agg(["size", "sum", "mean"])
    at_k = [pass_at_k(int(n), int(c), min(k, int(n))) for n, c, _ in per_task.to_numpy()]
    return {
        "tasks": len(per_task),
        "rollouts": len(frame),
        "pass_rate": float(per_task["mean"].mean()) if len(frame) else float("nan"),
        "pass_at_k": float(np.mean(at_k)) if at_k else float("nan"),
        # unknown (NaN, written null) when any rollout's is unknown, never a partial mean
        "cost_per_task": known_mean(frame["cost"]),
        "tokens_per_task": known_mean(frame["tokens"]),
        "latency_s": float(frame["latency_s"].mean()),
    }


def harness_result(
    label: str,
    cid: str,
    main: Sequence[RolloutRow],
    attempts: int,
    u: Uncertainty | None,
    seed: tuple[float | None, Band, bool],
) -> HarnessResult:
    """One complete harness's row; `seed` is (the seed's pass rate or None when unknown, the
    resolution band, whether this harness is the seed)."""
    e_seed, band, is_seed = seed
    s = summarise(of(main, cid), attempts)
    nan2 = (float("nan"), float("nan"))
    pass_rate = float(s["pass_rate"])
    known = e_seed is not None
    seed_rate = e_seed if e_seed is not None else float("nan")
    return HarnessResult(
        harness=label,
        candidate_id=cid,
        tasks=int(s["tasks"]),
        rollouts=int(s["rollouts"]),
        pass_rate=pass_rate,
        pass_rate_ci=u.pass_rate_ci if u else nan2,
        pass_at_k=float(s["pass_at_k"]),
        cost_per_task=float(s["cost_per_task"]),
        cost_ci=u.cost_ci if u else nan2,
        tokens_per_task=float(s["tokens_per_task"]),
        latency_s=float(s["latency_s"]),
        gain=normalised_gain(pass_rate, seed_rate) if known else None,
        versus_seed=versus_label(is_seed, known, pass_rate, seed_rate, band),
    )


def final_report(
    rollouts: Sequence[RolloutRow],
    harnesses: Sequence[tuple[str, str]],
    tasks: Sequence[str],
    attempts: int,
    seed_id: str = SEED_ID,
    resamples: int = 1000,
    level: float = 0.9,
    seed: int = 0,
) -> FinalReport:
    """The held-out report from the ledger's rollouts; `harnesses` is [(label, candidate id)]
    with the seed's label first."""
    frame = held_out(rollouts, tasks)
    main = [r for r in frame if r.attempt < attempts]
    ids = list(dict.fromkeys(cid for _, cid in harnesses))
    short = held_out_shortfalls(rollouts, [seed_id, *ids], tasks, attempts, seed_id)
    seed_known = seed_id not in short
    e_seed = pass_rate(of(main, seed_id))
    e_seed = e_seed if seed_known else float("nan")
    seed_matrix = attempt_matrix(of(frame, seed_id), 2 * attempts)
    band = resolution_band(seed_matrix, attempts, seed) if seed_known else UNKNOWN_BAND
    complete = [cid for cid in ids if cid not in short]
    kept = set(complete)
    spread = bootstrap(
        [r for r in main if r.candidate_id in kept], "official_pass", resamples, level, seed
    )
    results = [
        incomplete_result(label, cid, summarise(of(main, cid), attempts),
                          short[cid].missing)
        if cid in short
        else harness_result(label, cid, main, attempts, spread.get(cid),
                            (e_seed if seed_known else None, band, cid == seed_id))
        for label, cid in harnesses
    ]  # fmt: skip
    return FinalReport(
        attempts=attempts,
        confidence=level,
        tasks=tuple(sorted(tasks)),
        band=band,
        band_gain=None if not seed_known or e_seed >= 1.0 else band.whole_split / (1.0 - e_seed),
        harnesses=tuple(results),
        incomplete=tuple(short[cid] for cid in dict.fromkeys([seed_id, *ids]) if cid in short),
    )


def incomplete_result(
    label: str, cid: str, s: dict[str, float | int], missing: int
) -> HarnessResult:
    """A harness missing verdicts: counted, never scored on the part it has."""
    nan, nan2 = float("nan"), (float("nan"), float("nan"))
    return HarnessResult(
        harness=label, candidate_id=cid, tasks=int(s["tasks"]), rollouts=int(s["rollouts"]),
        pass_rate=nan, pass_rate_ci=nan2, pass_at_k=nan, cost_per_task=nan, cost_ci=nan2,
        tokens_per_task=nan, latency_s=nan, gain=None, versus_seed="incomplete",
        missing=missing,
    )  # fmt: skip


def failed_verdicts(
    rollouts: Iterable[RolloutRow], harnesses: Sequence[tuple[str, str]], tasks: Sequence[str]
) -> list[str]:
    """One line per failed official verdict of the held-out evaluation: which harness, task
    and attempt, and the verifier's one-line reason (from the ledger's `verifier_reason`)."""
    failed = [r for r in held_out(rollouts, tasks) if r.official_pass is False]
    failed.sort(key=lambda r: (r.task_id, r.attempt))
    lines = []
    for label, cid in dict.fromkeys(harnesses):
        for row in of(failed, cid):
            reason = row.verifier_reason if isinstance(row.verifier_reason, str) else "unknown"
            lines.append(f"  {label} ({cid}) {row.task_id} attempt {row.attempt}: {reason}")
    return lines


def final_harnesses(ctx: RunContext) -> tuple[int, list[tuple[str, Candidate]]]:
    """The last finished epoch, and the seed followed by that epoch's operating points."""
    selections = ctx.ledger.selections()
    if selections.empty:
        raise RunNotFound(f"{ctx.run.root}: no epoch has finished yet; run `harnesspro evolve`.")
    epoch = int(selections["epoch"].max())
    candidates = ctx.candidates()
    last = selections[selections["epoch"] == epoch]
    picks = [(str(r.mode), candidates[str(r.candidate_id)]) for r in last.itertuples()]
    order = {"lite": 0, "medium": 1, "heavy": 2}
    picks.sort(key=lambda p: (order.get(p[0], len(order)), p[0]))
    return epoch, [("seed", candidates[SEED_ID]), *picks]


def run_final(ctx: RunContext, attempts: int) -> FinalReport:
    """Roll out the seed (2K attempts: the second K measure the band) and the operating points
    (K attempts) on the test split, then build the report; finished rollouts are reused."""
    epoch, harnesses = final_harnesses(ctx)
    return evaluate_points(ctx, epoch, harnesses, attempts)


def evaluate_points(
    ctx: RunContext, epoch: int, harnesses: list[tuple[str, Candidate]], attempts: int
) -> FinalReport:
    """`run_final`'s rollouts and report for given (label, candidate) pairs, the seed first,
    in `ctx`'s ledger (a transfer evaluates another run's points in its own)."""
    distinct = list({c.id: c for _, c in harnesses}.values())
    evaluate(ctx, distinct, epoch, "test", attempts=range(attempts))
    evaluate(ctx, [harnesses[0][1]], epoch, "test", attempts=range(attempts, 2 * attempts))
    ev = ctx.config.evaluation
    return final_report(
        ctx.ledger.rollout_rows(),
        [(label, c.id) for label, c in harnesses],
        ctx.splits.test,
        attempts,
        resamples=ev.bootstrap_resamples,
        level=ev.confidence,
        seed=ctx.config.seed,
    )


def open_run(run_dir: Path, console: Console, progress: Progress = SILENT) -> RunContext:
    """Reopen a run folder with the config it was run with."""
    if not (run_dir / "ledger.sqlite").is_file() or not (run_dir / "config.yaml").is_file():
        raise RunNotFound(f"{run_dir}: not a run folder (no ledger.sqlite); pass runs/<run-id>.")

    config = load_config(run_dir / "config.yaml")
    return RunContext.open(config, RunFolder(run_dir.resolve()), console, progress)
