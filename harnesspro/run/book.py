"""The run's side of the engine (`evaluation/engine.py`): its settings, read once from the
run config, and the run's record of rollouts (the ledger, the run folder's artifacts, the
progress bar), which is the engine's `RolloutBook`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from harnesspro.core.ledger import Ledger
from harnesspro.core.progress import SILENT, Progress
from harnesspro.core.records import RolloutResult
from harnesspro.execution.rollout import RolloutInputs
from harnesspro.execution.scheduler import rollout_cpus
from harnesspro.execution.settings import RolloutSettings
from harnesspro.run.context import RunContext
from harnesspro.run.folder import RunFolder


def rollout_settings(ctx: RunContext) -> RolloutSettings:
    """The engine's settings for this run."""
    config = ctx.config
    memo = config.evaluation.verdict_memo
    return RolloutSettings(
        model=config.model,
        price=ctx.price,
        sampling_seed=config.seed if config.sampling_seed is None else config.sampling_seed,
        timeout_s=config.sandbox.timeout_s,
        task_timeouts=config.sandbox.task_timeouts,
        sandbox=config.sandbox.backend,
        memory_mb=config.sandbox.memory_mb,
        budget=config.gateway.rollout_budget,
        retry=config.gateway.retry_policy(),
        infra_retries=config.gateway.infra_retries,
        behaviour=ctx.behaviour,
        task_hashes=ctx.task_hashes,
        official_on_search=config.evaluation.official_on_search,
        verdict_memo=memo.resolve() if memo else None,
        rollout_cache=config.evaluation.rollout_cache,
        ray=config.ray,
        rollout_cpus=rollout_cpus(config),
        max_target_dollars=config.budget.max_target_dollars,
        max_heldout_dollars=config.budget.max_heldout_dollars,
        model_url=ctx.model_url,
    )


@dataclass(frozen=True)
class LedgerBook:
    """The run's record of rollouts: each finished one's artifacts in the run folder and its
    row in the ledger, the progress bar advanced as it is recorded."""

    ledger: Ledger
    run: RunFolder
    progress: Progress = SILENT

    def finished_keys(self) -> set[str]:
        return self.ledger.rollout_keys()

    @contextmanager
    def recording(
        self, label: str, total: int, split: str
    ) -> Iterator[Callable[[RolloutInputs, RolloutResult], None]]:
        with self.progress.track(label, total) as advance:

            def record(inputs: RolloutInputs, result: RolloutResult) -> None:
                artifacts = self.run.save_rollout(result)
                self.ledger.record_rollout(inputs.spec, result, artifacts, split)
                advance()

            yield record

    def record_discarded(
        self, inputs: RolloutInputs, result: RolloutResult, split: str, tried: int
    ) -> None:
        self.ledger.record_discarded(inputs.spec, result, split, tried)

    def search_dollars(self) -> float:
        return self.ledger.search_dollars()

    def heldout_dollars(self) -> float:
        return self.ledger.heldout_dollars()

    def mark_stopped(self, why: str) -> None:
        if not self.ledger.meta("stopped"):
            self.ledger.set_meta("stopped", why)
