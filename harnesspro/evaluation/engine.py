"""Ray scheduling of rollouts (candidates x the tasks of a split x attempts): embedded local
Ray or a cluster, backpressure, infrastructure retries, a rollout cap, progress, resume."""

from __future__ import annotations

import hashlib
import os
import secrets
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

import ray

from harnesspro.core.config import ConfigError, ModelConfig, RayConfig, RunConfig
from harnesspro.core.records import Candidate, RolloutResult, RolloutSpec, Usage
from harnesspro.execution.fakes.scripted import TaskScript, script_for
from harnesspro.execution.rollout import RolloutInputs, run_rollout
from harnesspro.execution.rollout_cache import RolloutCache
from harnesspro.run.context import RunContext
from harnesspro.tasks.runtime import TaskBundle, bundle_task

Split = Literal["coreset", "validation", "test"]


EMBEDDED_CPUS = 2
REMOTE_ROLLOUT_CPUS = 0.25  # a rollout against a remote model mostly waits for it
LOOPBACK = ("127.", "localhost", "[::1]")


def check_ray(config: RayConfig) -> None:
    """Refuse settings that would be ignored: `ray.num_cpus` sizes only the embedded Ray."""
    if os.environ.get("RAY_ADDRESS") and config.num_cpus is not None:
        raise ConfigError(
            "ray.num_cpus sizes the embedded Ray only, but RAY_ADDRESS is set (the cluster's "
            "size rules there); remove ray.num_cpus from the config."
        )


def ensure_ray(config: RayConfig) -> None:
    """Join the cluster when RAY_ADDRESS is set, else start (or reuse) an embedded Ray."""
    if ray.is_initialized():
        return
    check_ray(config)
    quiet: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if os.environ.get("RAY_ADDRESS"):
        ray.init(address=os.environ["RAY_ADDRESS"], **quiet)
    else:
        # "local" starts a fresh Ray even when a `ray start` head runs on this machine: without
        # it ray.init() would join that foreign cluster, and refuse num_cpus there.
        cpus = config.num_cpus or EMBEDDED_CPUS
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, **quiet)


def model_is_local(model: ModelConfig) -> bool:
    """Whether a rollout's model work happens on this machine's CPUs (no waiting on a host)."""
    if model.upstream == "scripted":
        return model.latency is None
    host = urlsplit(model.base_url or "").netloc.rsplit("@", 1)[-1]
    return host.startswith(LOOPBACK)


def rollout_cpus(config: RunConfig) -> float:
    """The CPUs one rollout requests from Ray (`ray.rollout_cpus`, else by the model's kind)."""
    if config.ray.rollout_cpus is not None:
        return config.ray.rollout_cpus
    return 1.0 if model_is_local(config.model) else REMOTE_ROLLOUT_CPUS


def cluster_cpus() -> float:
    """The CPUs of the cluster's live nodes, as Ray sees them now."""
    return float(ray.cluster_resources().get("CPU", 0.0))


class Slots:
    """How many rollouts to keep in flight: the cluster's slots, i.e. its CPUs (refreshed at
    most every `refresh_s`, so nodes that join or leave count) over a rollout's request, plus
    a quarter queued in Ray so a freed slot starts the next rollout without waiting for the
    driver; never more than `max_in_flight`.

    Rollouts that end in an infrastructure fault (an upstream that kept failing, e.g. a 429
    storm outlasting the gateway's retries) halve the limit and each good one adds one back,
    so a rate-limited provider slows the run down instead of failing its rollouts.
    """

    def __init__(
        self,
        cpus: float,
        max_in_flight: int | None,
        refresh_s: float = 1.0,
        total: Callable[[], float] = cluster_cpus,
    ) -> None:
        self.cpus, self.cap, self.refresh_s, self.total = cpus, max_in_flight, refresh_s, total
        self.slots, self._at = 1, -float("inf")
        self.throttle: int | None = None  # the limit after faults, until it grows back

    def __call__(self) -> int:
        now = time.monotonic()
        if now - self._at >= self.refresh_s:
            self.slots, self._at = max(1, int(self.total() / self.cpus + 1e-9)), now
        limit = self.slots + max(1, self.slots // 4)
        limit = min(limit, self.cap) if self.cap else limit
        if self.throttle is not None and self.throttle >= limit:
            self.throttle = None
        return limit if self.throttle is None else self.throttle

    def fault(self) -> None:
        """An infrastructure fault: halve the limit (at least 1)."""
        self.throttle = max(1, self() // 2)

    def success(self) -> None:
        """A rollout came back fine: grow a halved limit by one."""
        if self.throttle is not None:
            self.throttle += 1


# No silent re-runs by Ray: a lost attempt's spend would never be recorded. A worker that dies
# comes back as an infrastructure error with unknown spend, and run_all retries it in view.
@ray.remote(num_cpus=1, max_retries=0)
def _remote_rollout(inputs: RolloutInputs) -> RolloutResult:
    return run_rollout(inputs)


def _collect(ref: ray.ObjectRef, inputs: RolloutInputs) -> RolloutResult:
    """The rollout's result, or an infrastructure error when its Ray worker failed."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayError as exc:
        reason = f"the Ray worker failed ({exc.__class__.__name__}); its spend is unknown"
        return RolloutResult(
            key=inputs.spec.key, status="infra_error", usage=Usage(), cost=None,
            latency_s=0.0, n_calls=0, official_pass=None, trajectory="", gateway_log="",
            workspace={}, reason=reason,
        )  # fmt: skip


def run_all(
    batch: Sequence[RolloutInputs],
    on_result: Callable[[RolloutInputs, RolloutResult], None],
    max_in_flight: Slots,
    cpus: float = 1.0,
    infra_retries: int = 1,
    should_stop: Callable[[], bool] = lambda: False,
    on_discard: Callable[[RolloutInputs, RolloutResult, int], None] = lambda i, r, t: None,
) -> bool:
    """Run every rollout of `batch`, calling `on_result` in the driver as each one finishes.

    At most `max_in_flight()` rollouts are in flight (asked again as each finishes, and told
    of each fault and success), each requesting `cpus` CPUs. Rollouts that end in an
    infrastructure fault are resubmitted up to `infra_retries` times; the last result is
    reported either way, so nothing is silently dropped; a result that is retried goes to
    `on_discard` (with its try number), so its spend is recorded. When `should_stop()` turns
    true (a run budget is spent) nothing new is submitted and the rollouts in flight are
    collected: that is the bound on overshoot. Returns False then.
    """
    remote = _remote_rollout.options(num_cpus=cpus)
    queue = deque((inputs, 0) for inputs in batch)
    pending: dict[ray.ObjectRef, tuple[RolloutInputs, int]] = {}
    stopped = False
    while queue or pending:
        stopped = stopped or should_stop()
        limit = max_in_flight()
        while queue and not stopped and len(pending) < limit:
            inputs, tries = queue.popleft()
            pending[remote.remote(inputs)] = (inputs, tries)
        if not pending:
            break
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            inputs, tries = pending.pop(ref)
            result = _collect(ref, inputs)
            if result.status == "infra_error":
                max_in_flight.fault()
            else:
                max_in_flight.success()
            if result.status == "infra_error" and tries < infra_retries:
                on_discard(inputs, result, tries)
                queue.append((inputs, tries + 1))
            else:
                on_result(inputs, result)
    return not stopped


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
