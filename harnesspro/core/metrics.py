"""Aggregates over the ledger's rollouts: pass rate and cost per task per candidate, by split."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from harnesspro.core.ledger import rollout_frame
from harnesspro.core.records import RolloutRow, Score

TOKEN_COLUMNS = ["uncached_input", "cached_input", "cache_write", "output"]


def row_tokens(row: RolloutRow) -> float:
    """A rollout's billed tokens; NaN where the counts are unknown (NULL in the ledger: the
    provider reported no usage for some call), never a partial sum read as 0."""
    return math.nan if row.usage is None else float(row.usage.total)


def _known(values: Iterable[float | None]) -> np.ndarray | None:
    """The values as an array, None when any is unknown (None or NaN)."""
    known = np.asarray([math.nan if v is None else v for v in values], dtype=np.float64)
    return None if np.isnan(known).any() else known


def known_mean(values: Iterable[float | None]) -> float:
    """The mean, or NaN (unknown) when any value is unknown: one unknown rollout makes the
    candidate's figure unknown, as for dollars."""
    known = _known(values)
    return float(known.mean()) if known is not None and known.size else math.nan


def known_sum(values: Iterable[float | None]) -> float:
    """The sum, or NaN (unknown) when any value is unknown."""
    known = _known(values)
    return float(known.sum()) if known is not None else math.nan


def scored(rollouts: Iterable[RolloutRow], task_ids: Iterable[str]) -> list[RolloutRow]:
    """Rollouts on the given tasks that count: infrastructure faults never do."""
    tasks = set(task_ids)
    return [r for r in rollouts if r.task_id in tasks and r.status != "infra_error"]


def judged(rollouts: Iterable[RolloutRow], task_ids: Iterable[str]) -> list[RolloutRow]:
    """`scored` rollouts the frozen tests have a verdict on."""
    return [r for r in scored(rollouts, task_ids) if r.passed is not None]


@dataclass(frozen=True)
class Shortfall:
    """A candidate missing scored rollouts: it is incomplete, never compared on a part."""

    candidate_id: str
    missing: int
    """Task x attempts without a scored rollout (never run, or only infrastructure errors)."""
    infra: int
    """Of those, how many ended in an infrastructure error."""
    wanted: int
    """Task x attempts it needed."""

    def describe(self) -> str:
        """`c003 (2 of 6 missing, 1 an infrastructure error)`."""
        infra = f", {self.infra} an infrastructure error" if self.infra == 1 else ""
        infra = infra or (f", {self.infra} infrastructure errors" if self.infra else "")
        return f"{self.candidate_id} ({self.missing} of {self.wanted} missing{infra})"


def shortfalls(
    rollouts: Iterable[RolloutRow],
    candidate_ids: Iterable[str],
    task_ids: Iterable[str],
    attempts: Iterable[int],
) -> dict[str, Shortfall]:
    """Each of `candidate_ids` lacking a scored rollout on some task x attempt; infrastructure
    errors are no rollout (a harness cannot turn its failures into absences that way)."""
    need = {(str(t), int(a)) for t in task_ids for a in attempts}
    tasks = {t for t, _ in need}
    have: dict[str, set[tuple[str, int]]] = {}
    faults: dict[str, set[tuple[str, int]]] = {}
    for r in (r for r in rollouts if r.task_id in tasks):
        into = faults if r.status == "infra_error" else have
        into.setdefault(r.candidate_id, set()).add((r.task_id, r.attempt))
    found = {}
    for cid in candidate_ids:
        missing = need - have.get(cid, set())
        if missing:
            infra = len(missing & faults.get(cid, set()))
            found[cid] = Shortfall(cid, len(missing), infra, len(need))
    return found


def candidate_scores(rollouts: Iterable[RolloutRow], task_ids: Iterable[str]) -> dict[str, Score]:
    """Score of every candidate with scored rollouts on `task_ids` (pass = frozen test)."""
    frame = rollout_frame(judged(rollouts, task_ids))
    scores = {}
    for candidate_id, group in frame.groupby("candidate_id"):
        scores[str(candidate_id)] = Score(
            candidate_id=str(candidate_id),
            pass_rate=float(group["pass"].mean()),
            # Unpriced model, or no usage reported: unknown (NaN), never 0.
            cost_per_task=known_mean(group["cost"]),
            tokens_per_task=known_mean(group["tokens"]),
            n_rollouts=len(group),
            calls_per_task=float(group["n_calls"].mean()),
        )
    return scores


def covering(rollouts: Sequence[RolloutRow], coreset: Iterable[str]) -> list[RolloutRow]:
    """Rollouts of the candidates with scored rollouts on every coreset task: after a coreset
    refresh, only they are compared (one common task set)."""
    tasks = set(coreset)
    seen: dict[str, set[str]] = {}
    for r in judged(rollouts, tasks):
        seen.setdefault(r.candidate_id, set()).add(r.task_id)
    full = {cid for cid, on in seen.items() if len(on) == len(tasks)}
    return [r for r in rollouts if r.candidate_id in full]


def on_split(rollouts: Iterable[RolloutRow], split: str) -> list[RolloutRow]:
    """Rollouts run on one split; ledgers from before splits hold only coreset rollouts."""
    return [r for r in rollouts if r.split == split]


def search_rollouts(rollouts: Iterable[RolloutRow]) -> list[RolloutRow]:
    """Rollouts the search spent (coreset and validation): everything but the test split."""
    return [r for r in rollouts if r.split != "test"]
