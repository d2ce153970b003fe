"""Evaluating candidates on a split: the rollouts (candidates x tasks x attempts) not recorded
yet, within the rollout cap, run by the scheduler (`execution.scheduler`) or taken from the
rollout cache, each handed to the run's record as it finishes (so a run resumes).

A step over typed records: it reads the run's `RolloutSettings`, a `Request`, the candidates'
files and the task payloads, and asks the run's record (a `RolloutBook`) for nothing but what
that protocol names; the run side is `evaluation/rollouts.py` and `run/book.py`."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Literal, Protocol

from harnesspro.core.records import Candidate, RolloutResult, RolloutSpec, Task
from harnesspro.execution.fakes.task_script import TaskScript
from harnesspro.execution.rollout import RolloutInputs
from harnesspro.execution.rollout_cache import RolloutCache
from harnesspro.execution.scheduler import Slots, ensure_ray, run_all
from harnesspro.execution.settings import RolloutSettings
from harnesspro.tasks.runtime import TaskBundle

Split = Literal["coreset", "validation", "test"]
Record = Callable[[RolloutInputs, RolloutResult], None]


class RolloutBook(Protocol):
    """What the engine asks of the run's record of rollouts."""

    def finished_keys(self) -> set[str]:
        """Keys of the rollouts recorded already: never run again."""
        ...

    def recording(self, label: str, total: int, split: Split) -> AbstractContextManager[Record]:
        """Within it, the function that records one finished rollout of a batch of `total`
        (its artifacts, its row, the progress)."""
        ...

    def record_discarded(
        self, inputs: RolloutInputs, result: RolloutResult, split: Split, tried: int
    ) -> None:
        """A try that ended in an infrastructure error and is run again (its spend counts)."""
        ...

    def search_dollars(self) -> float:
        """Target-model dollars of the search's rollouts so far."""
        ...

    def heldout_dollars(self) -> float:
        """Target-model dollars of the held-out evaluation's rollouts so far."""
        ...

    def mark_stopped(self, why: str) -> None:
        """Mark the run stopped, unless it is already (the first reason stays)."""
        ...


def rollout_key(settings: RolloutSettings, candidate: Candidate, task_id: str, attempt: int) -> str:
    """Hash of everything that determines a rollout: finished keys are never rerun."""
    m = settings.model
    parts: tuple[object, ...] = (candidate.tree, task_id, attempt, m.name, m.upstream)
    if m.upstream == "llama-cpp":  # the server's port changes from run to run; the model not
        server = m.local_server
        parts += (m.gguf, server.chat_format, server.context_tokens, settings.timeout_s)
    else:
        parts += (m.base_url, settings.timeout_s)
    if settings.task_timeouts != "lower":  # keys of the default unchanged
        parts += (settings.task_timeouts,)
    if m.upstream == "scripted" and m.behaviour.configured:  # default-profile keys unchanged
        parts += (settings.behaviour.digest(),)
    if settings.task_hashes is not None:  # a changed task is a new rollout (tasks/keys.py)
        parts += (settings.task_hashes[task_id],)
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:20]


@dataclass(frozen=True)
class TaskPayload:
    """A task as shipped to workers (its folder as data, cached per hash on the worker);
    read once per batch, not once per rollout."""

    task: Task
    bundle: TaskBundle
    script: TaskScript | None


def rollout_inputs(
    settings: RolloutSettings,
    candidate: Candidate,
    harness_files: dict[str, bytes],
    task: TaskPayload,
    attempt: int,
    epoch: int,
    grade: bool = True,
) -> RolloutInputs:
    """Everything one rollout needs, as data for a Ray worker."""
    meta = task.task
    key = rollout_key(settings, candidate, meta.id, attempt)
    return RolloutInputs(
        spec=RolloutSpec(key, candidate.id, meta.id, attempt, epoch),
        harness_files=harness_files,
        task_json={"id": meta.id, "instruction": meta.instruction, "workdir": meta.workdir},
        task=task.bundle,
        script=task.script,
        model=settings.model,
        price=settings.price,
        timeout_s=settings.rollout_timeout_s(meta.timeout_s),
        # Fixed per task and attempt: candidates are compared on common random numbers.
        sampling_seed=f"{settings.sampling_seed}:{meta.id}:{attempt}",
        token=secrets.token_hex(16),
        sandbox=settings.sandbox,
        memory_mb=settings.memory_mb,
        budget=settings.budget,
        retry=settings.retry,
        grade=grade,
        behaviour=settings.behaviour,
        verdict_memo=settings.verdict_memo,
        model_url=settings.model_url,
    )


@dataclass(frozen=True)
class Evaluated:
    """What one evaluation did."""

    ran: int
    skipped: tuple[str, ...] = ()
    """Candidates left out whole because the run's rollout cap would have been exceeded."""
    notes: tuple[str, ...] = ()
    """Lines for the run's console (the orchestration prints them; this layer never does)."""

    def __add__(self, other: Evaluated) -> Evaluated:
        return Evaluated(
            self.ran + other.ran, self.skipped + other.skipped, self.notes + other.notes
        )


@dataclass(frozen=True)
class Request:
    """One evaluation: each candidate on each task for each attempt, at most `cap` new
    rollouts (None: no cap), whole candidates only."""

    candidates: tuple[Candidate, ...]
    task_ids: tuple[str, ...]
    attempts: tuple[int, ...]
    epoch: int
    split: Split = "coreset"
    cap: int | None = None


Todo = tuple[Candidate, str, int]


@dataclass(frozen=True)
class Batch:
    """The rollouts of a request still to run, in order (candidate, task, attempt)."""

    request: Request
    todo: tuple[Todo, ...]
    skipped: tuple[str, ...]
    """Candidates left out whole by the request's cap."""

    def candidates(self) -> list[Candidate]:
        """The candidates with a rollout to run, once each, in order."""
        return list({c.id: c for c, _, _ in self.todo}.values())

    def task_ids(self) -> list[str]:
        """The tasks with a rollout to run, once each, in order."""
        return list(dict.fromkeys(t for _, t, _ in self.todo))


def within_cap(todo: Sequence[Todo], cap: int | None) -> tuple[list[Todo], tuple[str, ...]]:
    """Whole candidates, in order, while their rollouts fit `cap`; after the first that does
    not fit, none. A candidate scored on part of the tasks would not be comparable."""
    if cap is None:
        return list(todo), ()
    kept: list[Todo] = []
    skipped: list[str] = []
    for cid in dict.fromkeys(c.id for c, _, _ in todo):
        mine = [item for item in todo if item[0].id == cid]
        if skipped or len(kept) + len(mine) > cap:
            skipped.append(cid)
        else:
            kept.extend(mine)
    return kept, tuple(skipped)


def plan_rollouts(settings: RolloutSettings, request: Request, book: RolloutBook) -> Batch:
    """The request's rollouts not in the book yet, within its cap."""
    done = book.finished_keys()
    wanted = [
        (c, t, a)
        for c in request.candidates
        for t in request.task_ids
        for a in request.attempts
        if rollout_key(settings, c, t, a) not in done
    ]
    todo, skipped = within_cap(wanted, request.cap)
    return Batch(request, tuple(todo), skipped)


def run_rollouts(
    settings: RolloutSettings,
    batch: Batch,
    files: Mapping[str, dict[str, bytes]],
    tasks: Mapping[str, TaskPayload],
    book: RolloutBook,
) -> Evaluated:
    """Run the batch: `files` holds each of its candidates' harness files (by candidate id),
    `tasks` each of its tasks; the run is marked stopped when the dollar cap cut it short."""
    todo, skipped, request = batch.todo, batch.skipped, batch.request
    if not todo:
        return Evaluated(0, skipped)
    if run_batch(settings, batch, files, tasks, book):
        return Evaluated(len(todo), skipped)
    if request.split == "test":
        reason = f"budget.max_heldout_dollars ({settings.max_heldout_dollars}) reached"
        return Evaluated(len(todo), skipped, (f"{reason}: no new held-out rollouts are run",))
    reason = f"budget.max_target_dollars ({settings.max_target_dollars}) reached"
    book.mark_stopped(f"{reason} in epoch {request.epoch} ({request.split} split)")
    return Evaluated(len(todo), skipped, (f"{reason}: no new rollouts are scheduled",))


def run_batch(
    settings: RolloutSettings,
    batch: Batch,
    files: Mapping[str, dict[str, bytes]],
    tasks: Mapping[str, TaskPayload],
    book: RolloutBook,
) -> bool:
    """Run (or take from the rollout cache) every rollout of the batch and record each one;
    False when the dollar cap stopped the batch early."""
    epoch, split = batch.request.epoch, batch.request.split
    grade = split == "test" or settings.official_on_search
    inputs = [
        rollout_inputs(settings, c, files[c.id], tasks[t], a, epoch, grade)
        for c, t, a in batch.todo
    ]
    store = settings.rollout_cache
    cache = RolloutCache(store) if store else None
    cached = {id(i): hit for i in inputs if cache and (hit := cache.get(i)) is not None}
    fresh = [i for i in inputs if id(i) not in cached]
    if fresh:
        ensure_ray(settings.ray)
    label = f"epoch {epoch} {split}: rollouts of {', '.join(c.id for c in batch.candidates())}"
    with book.recording(label, len(inputs), split) as record:

        def record_and_keep(done: RolloutInputs, result: RolloutResult) -> None:
            record(done, result)
            if cache and id(done) not in cached:
                cache.put(done, result)

        for each in inputs:
            if id(each) in cached:
                record(each, cached[id(each)])
        finished = run_all(
            fresh,
            record_and_keep,
            Slots(settings.rollout_cpus, settings.ray.max_in_flight),
            settings.rollout_cpus,
            infra_retries=settings.infra_retries,
            should_stop=dollar_cap_reached(settings, book, split),
            on_discard=lambda i, r, t: book.record_discarded(i, r, split, t),
        )
    if cache:
        cache.close()
    return finished


def dollar_cap_reached(
    settings: RolloutSettings, book: RolloutBook, split: str
) -> Callable[[], bool]:
    """Whether the search's target-model dollars reached `budget.max_target_dollars` (the
    held-out evaluation's, on the test split: `budget.max_heldout_dollars`).

    Checked before each submission, from the book: rollouts already in flight still finish,
    so the overshoot is at most the cost of the rollouts in flight (the cluster's slots, or
    `ray.max_in_flight`).
    """
    held = split == "test"
    cap = settings.max_heldout_dollars if held else settings.max_target_dollars
    if cap is None:
        return lambda: False
    spent = book.heldout_dollars if held else book.search_dollars
    return lambda: spent() >= cap
