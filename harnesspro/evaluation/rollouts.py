"""Evaluating candidates on a split of this run: the engine (`evaluation/engine.py`) given
the run's settings, its request, the candidates' files and the task payloads as data, and the
run's ledger as its record (`run/book.py`)."""

from __future__ import annotations

from collections.abc import Sequence

from harnesspro.core.records import Candidate, Task
from harnesspro.evaluation.engine import (
    Evaluated,
    Request,
    Split,
    TaskPayload,
    plan_rollouts,
    run_rollouts,
)
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.run.book import LedgerBook, rollout_settings
from harnesspro.run.context import RunContext
from harnesspro.tasks.runtime import bundle_task


def task_payload(task: Task, scripted: bool) -> TaskPayload:
    """A task read from its folder for the workers (the scripted policy's script too)."""
    return TaskPayload(task, bundle_task(task), script_for(task) if scripted else None)


def evaluate(
    ctx: RunContext,
    candidates: list[Candidate],
    epoch: int,
    split: Split = "coreset",
    task_ids: Sequence[str] | None = None,
    attempts: Sequence[int] | None = None,
    cap: int | None = None,
) -> Evaluated:
    """Rollouts of each candidate on each task of `split` (default: all of it) for each of
    `attempts` (default: the G attempts 0..G-1), skipping finished ones; at most `cap` new
    rollouts, whole candidates only."""
    tasks = getattr(ctx.splits, split) if task_ids is None else task_ids
    tries = range(ctx.config.evolution.rollouts_per_task) if attempts is None else attempts
    request = Request(tuple(candidates), tuple(tasks), tuple(tries), epoch, split, cap)
    settings, book = rollout_settings(ctx), LedgerBook(ctx.ledger, ctx.run, ctx.progress)
    batch = plan_rollouts(settings, request, book)
    # Read only what will run: nothing when every rollout is recorded already.
    files = {c.id: ctx.repo.files(c.commit) for c in batch.candidates()}
    scripted = settings.model.upstream == "scripted"
    payloads = {t: task_payload(ctx.tasks[t], scripted) for t in batch.task_ids()}
    return run_rollouts(settings, batch, files, payloads, book)
