"""Ray scheduling of rollouts (candidates x coreset tasks x G): embedded local Ray or a
cluster, backpressure, infrastructure retries, progress, resume."""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Callable, Sequence
from typing import Any

import ray
from rich.progress import Progress

from harnesspro.context import RunContext
from harnesspro.policies.scripted import script_for
from harnesspro.records import Candidate, RolloutResult, RolloutSpec
from harnesspro.rollout import RolloutInputs, run_rollout
from harnesspro.tasks.loader import folder_files, workspace_files

INFRA_RETRIES = 1  # an infrastructure fault is retried this many times, then reported


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
) -> None:
    """Run every rollout of `batch`, calling `on_result` in the driver as each one finishes.

    Rollouts that end in an infrastructure fault are resubmitted up to INFRA_RETRIES times;
    the last result is reported either way, so nothing is silently dropped.
    """
    queue = [(inputs, 0) for inputs in batch]
    pending: dict[ray.ObjectRef, tuple[RolloutInputs, int]] = {}
    while queue or pending:
        while queue and len(pending) < max_in_flight:
            inputs, tries = queue.pop(0)
            pending[_remote_rollout.remote(inputs)] = (inputs, tries)
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            inputs, tries = pending.pop(ref)
            result = ray.get(ref)
            if result.status == "infra_error" and tries < INFRA_RETRIES:
                queue.append((inputs, tries + 1))
            else:
                on_result(inputs, result)


def rollout_key(ctx: RunContext, candidate: Candidate, task_id: str, attempt: int) -> str:
    """Hash of everything that determines a rollout: finished keys are never rerun."""
    m, sb = ctx.config.model, ctx.config.sandbox
    parts = (candidate.tree, task_id, attempt, m.name, m.upstream, m.base_url, sb.timeout_s)
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:20]


def rollout_inputs(
    ctx: RunContext,
    candidate: Candidate,
    harness_files: dict[str, bytes],
    task_id: str,
    attempt: int,
    epoch: int,
) -> RolloutInputs:
    """Everything one rollout needs, as data for a Ray worker."""
    task = ctx.tasks[task_id]
    key = rollout_key(ctx, candidate, task_id, attempt)
    scripted = ctx.config.model.upstream == "scripted"
    return RolloutInputs(
        spec=RolloutSpec(key, candidate.id, task_id, attempt, epoch),
        harness_files=harness_files,
        task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
        workspace_files=workspace_files(task),
        test_files=folder_files(task.path / "tests"),
        script=script_for(task) if scripted else None,
        model=ctx.config.model,
        price=ctx.price,
        timeout_s=min(ctx.config.sandbox.timeout_s, task.timeout_s),
        # Fixed per task and attempt: candidates are compared on common random numbers.
        sampling_seed=f"{ctx.config.seed}:{task_id}:{attempt}",
        token=secrets.token_hex(16),
        sandbox=ctx.config.sandbox.backend,
        memory_mb=ctx.config.sandbox.memory_mb,
    )


def evaluate(ctx: RunContext, candidates: list[Candidate], epoch: int) -> int:
    """G rollouts of each candidate on each coreset task, skipping finished ones.

    Returns the number of rollouts run.
    """
    done = ctx.ledger.rollout_keys()
    g = ctx.config.evolution.rollouts_per_task
    todo = [
        (c, t, a)
        for c in candidates
        for t in ctx.splits.coreset
        for a in range(g)
        if rollout_key(ctx, c, t, a) not in done
    ]
    if not todo:
        return 0
    files = {c.id: ctx.repo.files(c.commit) for c in candidates}
    batch = [rollout_inputs(ctx, c, files[c.id], t, a, epoch) for c, t, a in todo]
    ensure_ray(ctx.config.ray.num_cpus)
    names = ", ".join(c.id for c in candidates)
    with Progress(console=ctx.console, transient=True) as progress:
        bar = progress.add_task(f"epoch {epoch}: rollouts of {names}", total=len(batch))

        def record(inputs: RolloutInputs, result: RolloutResult) -> None:
            artifacts = ctx.run.save_rollout(result)
            ctx.ledger.record_rollout(inputs.spec, result, artifacts)
            progress.advance(bar)

        run_all(batch, record, max_in_flight=2 * ctx.config.ray.num_cpus)
    return len(batch)
