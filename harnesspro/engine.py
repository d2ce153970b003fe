"""Ray scheduling of rollouts: embedded local Ray or a cluster, backpressure, infra retries."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import ray

from harnesspro.rollout import RolloutInputs, run_rollout
from harnesspro.records import RolloutResult

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
