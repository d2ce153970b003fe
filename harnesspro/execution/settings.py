"""What every rollout of a run shares: the engine's settings (`evaluation/engine.py`), read
once from the run config by the run side (`run/book.py`), so the engine never reads the
config itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from harnesspro.core.execution_config import RayConfig, rollout_timeout_s
from harnesspro.core.model_config import ModelConfig, Price
from harnesspro.core.retry import RetryPolicy
from harnesspro.core.rollout_budget import RolloutBudget
from harnesspro.execution.worlds import Profile


@dataclass(frozen=True)
class RolloutSettings:
    """The run's rollout settings, as the engine needs them."""

    model: ModelConfig
    price: Price | None
    """None: an unpriced model (`model.allow_unpriced`), cost unknown."""
    sampling_seed: int
    """The config's `sampling_seed`, else its `seed`; with the task and the attempt, each
    rollout's sampling seed."""
    timeout_s: float
    """`sandbox.timeout_s`."""
    task_timeouts: str
    """`sandbox.task_timeouts`: `lower` (a task's own limit can lower `timeout_s`) or
    `ignore`."""
    sandbox: str
    memory_mb: int
    budget: RolloutBudget
    """Caps per rollout (`gateway.rollout_budget`)."""
    retry: RetryPolicy
    """Retries of one model call (`gateway.*`)."""
    infra_retries: int
    behaviour: Profile
    """The scripted policy's profile (trusted side: shipped to the gateway, nowhere else)."""
    task_hashes: Mapping[str, str] | None
    """Content hash per task, part of every rollout key (None: a ledger keyed before that)."""
    official_on_search: bool
    """Run the official verifier on search rollouts too (test rollouts always run it)."""
    verdict_memo: Path | None
    rollout_cache: Path | None
    ray: RayConfig
    rollout_cpus: float
    """CPUs one rollout requests from Ray."""
    max_target_dollars: float | None
    """The run's dollar cap on search rollouts (`budget.max_target_dollars`)."""
    max_heldout_dollars: float | None = None
    """The dollar cap on the held-out evaluation's rollouts (`budget.max_heldout_dollars`)."""
    model_url: str | None = None
    """The base URL of the llama.cpp server the run started (upstream llama-cpp)."""

    def rollout_timeout_s(self, task_timeout_s: float) -> float:
        """The time limit of a rollout on a task with this agent timeout."""
        return rollout_timeout_s(self.timeout_s, self.task_timeouts, task_timeout_s)
