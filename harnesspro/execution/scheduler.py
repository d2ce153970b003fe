"""Ray scheduling of rollouts: embedded local Ray or a cluster, CPUs per rollout, an adaptive
cap on rollouts in flight, infrastructure retries in view, and a stop that bounds overshoot."""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import ray

from harnesspro.core.config import RunConfig
from harnesspro.core.config_base import ConfigError
from harnesspro.core.execution_config import RayConfig
from harnesspro.core.model_config import ModelConfig
from harnesspro.core.records import RolloutResult, Usage
from harnesspro.execution.rollout import RolloutInputs, run_rollout

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


def check_cluster(config: RayConfig) -> None:
    """Refuse ignored settings, and join the cluster now when RAY_ADDRESS names one: one that
    cannot be reached is refused before a run writes anything."""
    check_ray(config)
    if os.environ.get("RAY_ADDRESS"):
        ensure_ray(config)


def ensure_ray(config: RayConfig) -> None:
    """Join the cluster when RAY_ADDRESS is set, else start (or reuse) an embedded Ray."""
    check_ray(config)
    if ray.is_initialized():
        return
    quiet: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if os.environ.get("RAY_ADDRESS"):
        join_cluster(os.environ["RAY_ADDRESS"], quiet)
    else:
        # "local" starts a fresh Ray even when a `ray start` head runs on this machine: without
        # it ray.init() would join that foreign cluster, and refuse num_cpus there.
        cpus = config.num_cpus or EMBEDDED_CPUS
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, **quiet)


def join_cluster(address: str, options: dict[str, Any]) -> None:
    """Connect to the cluster RAY_ADDRESS names; one that cannot be reached is one sentence."""
    try:
        ray.init(address=address, **options)
    except ConnectionError as exc:
        raise ConfigError(
            f"RAY_ADDRESS={address}: cannot connect to that Ray cluster ({exc}); check that it "
            "runs and the address, set RAY_AUTH_MODE=token when it requires a token, or unset "
            "RAY_ADDRESS to run on an embedded Ray."
        ) from None


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
