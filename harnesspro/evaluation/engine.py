"""Evaluating candidates on a split: the rollouts (candidates x tasks x attempts) not in the
ledger yet, within the rollout cap, run by the scheduler (`execution.scheduler`) or taken from
the rollout cache, each recorded in the ledger as it finishes (so a run resumes)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from harnesspro.core.records import Candidate, RolloutResult, RolloutSpec
from harnesspro.execution.fakes.task_script import TaskScript, script_for
from harnesspro.execution.rollout import RolloutInputs
from harnesspro.execution.rollout_cache import RolloutCache
from harnesspro.execution.scheduler import Slots, ensure_ray, rollout_cpus, run_all
from harnesspro.run.context import RunContext
from harnesspro.tasks.runtime import TaskBundle, bundle_task

Split = Literal["coreset", "validation", "test"]


def rollout_key(ctx: RunContext, candidate: Candidate, task_id: str, attempt: int) -> str:
    """Hash of everything that determines a rollout: finished keys are never rerun."""
    m, sb = ctx.config.model, ctx.config.sandbox
    parts: tuple[object, ...] = (candidate.tree, task_id, attempt, m.name, m.upstream)
    parts += (m.base_url, sb.timeout_s)
    if m.upstream == "scripted" and m.behaviour.configured:  # default-profile keys unchanged
        parts += (ctx.behaviour.digest(),)
    if ctx.task_hashes is not None:  # a changed task is a new rollout (harnesspro/tasks/keys.py)
        parts += (ctx.task_hashes[task_id],)
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:20]


@dataclass(frozen=True)
class TaskPayload:
    """A task as shipped to workers (its folder as data, cached per hash on the worker);
    read once per batch, not once per rollout."""

    bundle: TaskBundle
    script: TaskScript | None


def task_payload(ctx: RunContext, task_id: str) -> TaskPayload:
    task = ctx.tasks[task_id]
    scripted = ctx.config.model.upstream == "scripted"
    return TaskPayload(bundle_task(task), script_for(task) if scripted else None)


def rollout_inputs(
    ctx: RunContext,
    candidate: Candidate,
    harness_files: dict[str, bytes],
    task: TaskPayload,
    task_id: str,
    attempt: int,
    epoch: int,
    grade: bool = True,
) -> RolloutInputs:
    """Everything one rollout needs, as data for a Ray worker."""
    meta = ctx.tasks[task_id]
    key = rollout_key(ctx, candidate, task_id, attempt)
    return RolloutInputs(
        spec=RolloutSpec(key, candidate.id, task_id, attempt, epoch),
        harness_files=harness_files,
        task_json={"id": meta.id, "instruction": meta.instruction, "workdir": meta.workdir},
        task=task.bundle,
        script=task.script,
        model=ctx.config.model,
        price=ctx.price,
        timeout_s=min(ctx.config.sandbox.timeout_s, meta.timeout_s),
        # Fixed per task and attempt: candidates are compared on common random numbers.
        sampling_seed=f"{ctx.config.seed}:{task_id}:{attempt}",
        token=secrets.token_hex(16),
        sandbox=ctx.config.sandbox.backend,
        memory_mb=ctx.config.sandbox.memory_mb,
        budget=ctx.config.gateway.rollout_budget,
        retry=ctx.config.gateway.retry_policy(),
        grade=grade,
        behaviour=ctx.behaviour,
        verdict_memo=memo.resolve() if (memo := ctx.config.evaluation.verdict_memo) else None,
    )


@dataclass(frozen=True)
class Evaluated:
    """What one `evaluate` call did."""

    ran: int
    skipped: tuple[str, ...] = ()
    """Candidates left out whole because the run's rollout cap would have been exceeded."""
    notes: tuple[str, ...] = ()
    """Lines for the run's console (the orchestration prints them; this layer never does)."""

    def __add__(self, other: Evaluated) -> Evaluated:
        return Evaluated(
            self.ran + other.ran, self.skipped + other.skipped, self.notes + other.notes
        )


Todo = tuple[Candidate, str, int]


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
    done = ctx.ledger.rollout_keys()
    wanted = [
        (c, t, a)
        for c in candidates
        for t in tasks
        for a in tries
        if rollout_key(ctx, c, t, a) not in done
    ]
    todo, skipped = within_cap(wanted, cap)
    if not todo:
        return Evaluated(0, skipped)
    if run_batch(ctx, todo, epoch, split):
        return Evaluated(len(todo), skipped)
    reason = f"budget.max_target_dollars ({ctx.config.budget.max_target_dollars}) reached"
    if not ctx.ledger.meta("stopped"):
        ctx.ledger.set_meta("stopped", f"{reason} in epoch {epoch} ({split} split)")
    return Evaluated(len(todo), skipped, (f"{reason}: no new rollouts are scheduled",))


def run_batch(ctx: RunContext, todo: list[Todo], epoch: int, split: Split) -> bool:
    """Run (or take from the rollout cache) every rollout of `todo` and record each one;
    False when the dollar cap stopped the batch early."""
    files = {c.id: ctx.repo.files(c.commit) for c, _, _ in todo}
    payloads = {t: task_payload(ctx, t) for t in dict.fromkeys(t for _, t, _ in todo)}
    grade = split == "test" or ctx.config.evaluation.official_on_search
    batch = [
        rollout_inputs(ctx, c, files[c.id], payloads[t], t, a, epoch, grade) for c, t, a in todo
    ]
    store = ctx.config.evaluation.rollout_cache
    cache = RolloutCache(store) if store else None
    cached = {id(i): hit for i in batch if cache and (hit := cache.get(i)) is not None}
    fresh = [i for i in batch if id(i) not in cached]
    if fresh:
        ensure_ray(ctx.config.ray)
    names = ", ".join(dict.fromkeys(c.id for c, _, _ in todo))
    with ctx.progress.track(f"epoch {epoch} {split}: rollouts of {names}", len(batch)) as step:
        record = recorder(ctx, split, step)

        def record_and_keep(inputs: RolloutInputs, result: RolloutResult) -> None:
            record(inputs, result)
            if cache and id(inputs) not in cached:
                cache.put(inputs, result)

        for inputs in batch:
            if id(inputs) in cached:
                record(inputs, cached[id(inputs)])
        cpus = rollout_cpus(ctx.config)
        finished = run_all(
            fresh,
            record_and_keep,
            Slots(cpus, ctx.config.ray.max_in_flight),
            cpus,
            infra_retries=ctx.config.gateway.infra_retries,
            should_stop=dollar_cap_reached(ctx) if split != "test" else lambda: False,
            on_discard=lambda i, r, t: ctx.ledger.record_discarded(i.spec, r, split, t),
        )
    if cache:
        cache.close()
    return finished


def recorder(
    ctx: RunContext, split: str, advance: Callable[[], None]
) -> Callable[[RolloutInputs, RolloutResult], None]:
    """What the driver does with each finished rollout: artifacts, ledger row, progress."""

    def record(inputs: RolloutInputs, result: RolloutResult) -> None:
        artifacts = ctx.run.save_rollout(result)
        ctx.ledger.record_rollout(inputs.spec, result, artifacts, split)
        advance()

    return record


def dollar_cap_reached(ctx: RunContext) -> Callable[[], bool]:
    """Whether the search's target-model dollars reached `budget.max_target_dollars`.

    Checked before each submission, from the ledger: rollouts already in flight still finish,
    so the overshoot is at most the cost of the rollouts in flight (the cluster's slots, or
    `ray.max_in_flight`).
    """
    cap = ctx.config.budget.max_target_dollars
    if cap is None:
        return lambda: False

    return lambda: ctx.ledger.search_dollars() >= cap
