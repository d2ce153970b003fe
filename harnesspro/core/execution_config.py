"""Where and how rollouts run and are counted: the sandbox, the gateway, the spend caps, Ray,
the evaluation splits, reports and the harness to start from."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import (
    Field,
    field_validator,
)

from harnesspro.core.config_base import (
    DAY_S,
    MAX_MEMORY_MB,
    MAX_REPEATS,
    Strict,
)
from harnesspro.core.knobs import load_knobs
from harnesspro.core.retry import RetryPolicy
from harnesspro.core.rollout_budget import RolloutBudget


def rollout_timeout_s(timeout_s: float, task_timeouts: str, task_timeout_s: float) -> float:
    """A rollout's time limit: `timeout_s`, lowered by the task's own unless `task_timeouts`
    is `ignore`."""
    return timeout_s if task_timeouts == "ignore" else min(timeout_s, task_timeout_s)


class SandboxConfig(Strict):
    backend: Literal["bubblewrap", "local"] = "bubblewrap"
    """Isolation of harness and test processes; `local` = none at all (warns loudly)."""
    timeout_s: float = Field(120.0, gt=0, le=DAY_S)
    """Wall-clock limit of one harness run; every process it started is killed after it."""
    task_timeouts: Literal["lower", "ignore"] = "lower"
    """`lower`: a task's own agent timeout (task.toml) can lower `timeout_s`; `ignore`:
    `timeout_s` alone applies (a slow local model needs more than tasks written for hosted
    models allow)."""

    memory_mb: int = Field(4096, ge=64, le=MAX_MEMORY_MB)
    """Address-space cap of each sandboxed process."""

    def rollout_timeout_s(self, task_timeout_s: float) -> float:
        """The time limit of a rollout on a task with this agent timeout."""
        return rollout_timeout_s(self.timeout_s, self.task_timeouts, task_timeout_s)


class GatewayConfig(Strict):
    rollout_budget: RolloutBudget = RolloutBudget()
    """Caps per rollout; over a cap the harness gets an error and the rollout ends
    `budget_exhausted`."""
    max_attempts: int = Field(4, ge=1, le=MAX_REPEATS)
    """Attempts per model call when the upstream fails transiently (429, 5xx, timeouts)."""
    backoff_s: float = Field(0.5, ge=0, le=DAY_S)
    """First retry delay (jittered, doubling; Retry-After wins when given)."""
    retry_budget_s: float = Field(30.0, ge=0, le=DAY_S)
    """Most time spent waiting on retries for one call."""
    infra_retries: int = Field(1, ge=0, le=MAX_REPEATS)
    """Times a rollout that ended in an infrastructure failure is run again before it is
    excluded (and reported)."""

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(self.max_attempts, self.backoff_s, budget_s=self.retry_budget_s)


class BudgetConfig(Strict):
    max_target_dollars: float | None = Field(None, gt=0)
    """Dollars for target (harness) rollouts over the whole run; the run stops scheduling at
    the cap (overshoot: at most the rollouts in flight) and still writes its reports."""
    max_improver_dollars: float | None = Field(None, gt=0)
    """Dollars for analyzer/planner/editor/synthesizer calls (the search-cost account)."""
    max_heldout_dollars: float | None = Field(None, gt=0)
    """Dollars for the held-out evaluation's rollouts (outside the search's caps); it stops
    scheduling at the cap (overshoot: at most the rollouts in flight) and reports what ran."""


class RayConfig(Strict):
    num_cpus: int | None = Field(None, ge=1)
    """CPUs of the embedded local Ray (None = 2). On a cluster (RAY_ADDRESS set) the cluster's
    size rules, so setting it there is an error."""
    rollout_cpus: float | None = Field(None, gt=0, le=64)
    """CPUs one rollout reserves; fractions are fine. None = 1 when the rollout's own machine
    does the model's work (the scripted policy without `model.latency`, or an openai upstream on
    loopback such as a local llama.cpp), else 0.25: a rollout against a remote model mostly
    waits for it."""
    max_in_flight: int | None = Field(None, ge=1)
    """At most this many rollouts at once, e.g. for a rate-limited provider (None = as many as
    the cluster has slots: its CPUs / rollout_cpus, refreshed as nodes join or leave)."""


class EvaluationConfig(Strict):
    validation_rollouts: int | None = Field(None, ge=0, le=MAX_REPEATS)
    """Rollouts of each selected candidate per validation task each epoch (None = G; 0 = no
    validation)."""
    validation_tasks: int | None = Field(None, ge=1)
    """At most this many validation tasks, a fixed hash-ordered sample (None = all)."""
    final: bool = True
    """Run the held-out test evaluation (seed and lite/medium/heavy) when evolution ends."""
    attempts: int = Field(3, ge=1, le=MAX_REPEATS)
    """K: attempts per test task in the held-out evaluation."""
    removal_rollouts: int = Field(0, ge=0)
    """Component removal after the held-out evaluation: each catalog mechanism of each
    operating point removed once, K attempts per coreset task (official tests), if all of it
    fits in this many rollouts (0 = off; reports/removal.csv)."""
    bootstrap_resamples: int = Field(1000, ge=100, le=1_000_000)
    """Bootstrap resamples behind every confidence interval and P(non-dominated)."""
    confidence: float = Field(0.9, gt=0.0, lt=1.0)
    """Coverage of the reported confidence intervals."""
    max_rollouts: int | None = Field(None, ge=1)
    """Cap on search rollouts (coreset + validation); whole candidates only, so it is never
    exceeded. The held-out evaluation is accounted apart."""
    official_on_search: bool = True
    """Also run the official verifier on search (coreset, validation) rollouts, which the
    search never reads: it feeds only the synthesized-vs-official agreement report (about
    half a scripted rollout's time; `harnesspro bench` turns it off)."""
    rollout_cache: Path | None = None
    """A SQLite file of finished rollouts shared between runs: a rollout whose key (tree,
    task, attempt, model and profile, seed, price, limits) is there is copied, not rerun."""
    verdict_memo: Path | None = None
    """The benchmark's fast mode (`harnesspro bench --fast`): a SQLite file of official
    verdicts by task and final file system, so a rollout that leaves a state already graded
    is not graded again. Sound only where the verifier reads nothing but the task's files,
    as in the scripted world, so a real model (`model.upstream` other than `scripted`) is
    refused. Its rollouts never mix with others in the rollout cache."""


class ReportsConfig(Strict):
    dashboard: Literal["every_epoch", "end"] = "every_epoch"
    """When RUN/dashboard.html is written: at the end of every epoch (watch a run as it goes)
    or only when the run ends (`harnesspro bench`: about a second of plotting per epoch saved;
    `harnesspro dashboard RUN` renders it at any time)."""


class HarnessConfig(Strict):
    seed: Path | None = None
    """A harness directory (with harness.toml) to evolve instead of the bundled seed agent;
    the screening and the surrogate search the knobs its harness.toml declares ([[knob]],
    docs/harness-contract.md), the llm editor works on any harness."""

    @field_validator("seed")
    @classmethod
    def _seed_is_a_harness(cls, seed: Path | None) -> Path | None:
        if seed is not None and not (seed / "harness.toml").is_file():
            raise ValueError(f"{seed} has no harness.toml; give a harness directory")
        if seed is not None:
            load_knobs(seed)  # a bad [[knob]] table: KnobError names the file and the field
        return seed
