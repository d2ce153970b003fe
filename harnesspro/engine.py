"""Ray scheduling of rollouts (candidates x the tasks of a split x attempts): embedded local
Ray or a cluster, backpressure, infrastructure retries, a rollout cap, progress, resume."""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import ray
from rich.progress import Progress

from harnesspro.context import RunContext
from harnesspro.policies.scripted import TaskScript, script_for
from harnesspro.records import Candidate, RolloutResult, RolloutSpec
from harnesspro.rollout import RolloutInputs, run_rollout
from harnesspro.tasks.runtime import TaskBundle, bundle_task

Split = Literal["coreset", "validation", "test"]


def ensure_ray(num_cpus: int) -> None:
    """Join the cluster when RAY_ADDRESS is set, else start (or reuse) an embedded Ray."""
    if ray.is_initialized():
        return
    quiet: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if os.environ.get("RAY_ADDRESS"):
        ray.init(address=os.environ["RAY_ADDRESS"], **quiet)
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, **quiet)


@ray.remote(num_cpus=1, max_retries=2)
def _remote_rollout(inputs: RolloutInputs) -> RolloutResult:
    return run_rollout(inputs)


def run_all(
    batch: Sequence[RolloutInputs],
    on_result: Callable[[RolloutInputs, RolloutResult], None],
    max_in_flight: int,
    infra_retries: int = 1,
    should_stop: Callable[[], bool] = lambda: False,
) -> bool:
    """Run every rollout of `batch`, calling `on_result` in the driver as each one finishes.

    Rollouts that end in an infrastructure fault are resubmitted up to `infra_retries` times;
    the last result is reported either way, so nothing is silently dropped. When
    `should_stop()` turns true (a run budget is spent) nothing new is submitted and the
    rollouts in flight are collected: that is the bound on overshoot. Returns False then.
    """
    queue = [(inputs, 0) for inputs in batch]
    pending: dict[ray.ObjectRef, tuple[RolloutInputs, int]] = {}
    stopped = False
    while queue or pending:
        stopped = stopped or should_stop()
        while queue and not stopped and len(pending) < max_in_flight:
            inputs, tries = queue.pop(0)
            pending[_remote_rollout.remote(inputs)] = (inputs, tries)
        if not pending:
            break
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            inputs, tries = pending.pop(ref)
            result = ray.get(ref)
            if result.status == "infra_error" and tries < infra_retries:
                queue.append((inputs, tries + 1))
            else:
                on_result(inputs, result)
    return not stopped


def rollout_key(ctx: RunContext, candidate: Candidate, task_id: str, attempt: int) -> str:
    """Hash of everything that determines a rollout: finished keys are never rerun."""
    m, sb = ctx.config.model, ctx.config.sandbox
    parts = (candidate.tree, task_id, attempt, m.name, m.upstream, m.base_url, sb.timeout_s)
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
    )


@dataclass(frozen=True)
class Evaluated:
    """What one `evaluate` call did."""

    ran: int
    skipped: tuple[str, ...] = ()
    """Candidates left out whole because the run's rollout cap would have been exceeded."""


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
    done = ctx.ledger.rollout_keys()
    tasks = getattr(ctx.splits, split) if task_ids is None else task_ids
    tries = range(ctx.config.evolution.rollouts_per_task) if attempts is None else attempts
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
    files = {c.id: ctx.repo.files(c.commit) for c, _, _ in todo}
    payloads = {t: task_payload(ctx, t) for t in dict.fromkeys(t for _, t, _ in todo)}
    batch = [rollout_inputs(ctx, c, files[c.id], payloads[t], t, a, epoch) for c, t, a in todo]
    ensure_ray(ctx.config.ray.num_cpus)
    names = ", ".join(dict.fromkeys(c.id for c, _, _ in todo))
    with Progress(console=ctx.console, transient=True) as progress:
        bar = progress.add_task(f"epoch {epoch} {split}: rollouts of {names}", total=len(batch))

        def record(inputs: RolloutInputs, result: RolloutResult) -> None:
            artifacts = ctx.run.save_rollout(result)
            ctx.ledger.record_rollout(inputs.spec, result, artifacts, split)
            progress.advance(bar)

        finished = run_all(
            batch,
            record,
            max_in_flight=2 * ctx.config.ray.num_cpus,
            infra_retries=ctx.config.gateway.infra_retries,
            should_stop=dollar_cap_reached(ctx) if split != "test" else lambda: False,
        )
    if not finished:
        reason = f"budget.max_target_dollars ({ctx.config.budget.max_target_dollars}) reached"
        if not ctx.ledger.meta("stopped"):
            ctx.ledger.set_meta("stopped", f"{reason} in epoch {epoch} ({split} split)")
        ctx.console.print(f"  {reason}: no new rollouts are scheduled", markup=False)
    return Evaluated(len(batch), skipped)


def dollar_cap_reached(ctx: RunContext) -> Callable[[], bool]:
    """Whether the search's target-model dollars reached `budget.max_target_dollars`.

    Checked before each submission, from the ledger: rollouts already in flight still finish,
    so the overshoot is at most `2 x ray.num_cpus` rollouts' cost.
    """
    cap = ctx.config.budget.max_target_dollars
    if cap is None:
        return lambda: False

    return lambda: ctx.ledger.search_dollars() >= cap
