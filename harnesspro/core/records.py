"""Frozen typed records that cross module boundaries."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Directive = Literal["cost-first", "balanced", "performance-first"]
DIRECTIVES: tuple[Directive, ...] = ("cost-first", "balanced", "performance-first")
RolloutStatus = Literal["ok", "budget_exhausted", "harness_error", "timeout", "infra_error"]


@dataclass(frozen=True)
class Task:
    """One Harbor-format task folder."""

    id: str
    instruction: str
    workdir: str
    category: str
    difficulty: str
    timeout_s: float
    path: Path


@dataclass(frozen=True)
class Usage:
    """Token usage split the way providers bill it; absent parts are 0."""

    uncached_input: int = 0
    cached_input: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.uncached_input + other.uncached_input,
            self.cached_input + other.cached_input,
            self.cache_write + other.cache_write,
            self.output + other.output,
            self.reasoning + other.reasoning,
        )

    @property
    def total(self) -> int:
        return self.uncached_input + self.cached_input + self.cache_write + self.output


def total_usage(parts: Iterable[Usage | None]) -> Usage | None:
    """The sum of several calls' usage, or None (unknown) when any of them is unknown: a
    partial sum would read as a total (the same rule as for dollars)."""
    total = Usage()
    for part in parts:
        if part is None:
            return None
        total = total + part
    return total


@dataclass(frozen=True)
class ModelCall:
    """One metered call through the gateway."""

    model: str
    usage: Usage | None
    """None = the provider reported no usage for an answer it may bill (a stream without a
    usage chunk, an unreadable answer, a call cut off): unknown, never 0."""
    cost: float | None  # None = the model has no price (allow_unpriced): unknown, never 0
    latency_s: float
    status: int  # HTTP status the harness got (402 = a budget refused it, 502 = upstream failed)
    retries: int = 0


@dataclass(frozen=True)
class RolloutRow:
    """A recorded rollout as the scoring steps read it back."""

    key: str
    candidate_id: str
    task_id: str
    split: str
    """`coreset` for rollouts of ledgers from before splits."""
    status: str
    passed: bool | None
    """The search's verdict (None: not scored)."""
    attempt: int = 0
    epoch: int = 0
    official_pass: bool | None = None
    """The official tests' verdict (None: none, e.g. an infrastructure error)."""
    usage: Usage | None = None
    """None = unknown (the provider reported no usage for some call), never 0."""
    cost: float | None = None
    """Dollars; None = unknown (an unpriced model, or no usage reported), never 0."""
    latency_s: float = 0.0
    n_calls: int = 0
    artifacts: str = ""
    reason: str | None = None
    verifier_reason: str | None = None
    """One line on the official verdict (why it failed)."""


@dataclass(frozen=True)
class RolloutSpec:
    """What to run: one candidate on one task, one attempt."""

    key: str
    candidate_id: str
    task_id: str
    attempt: int
    epoch: int


@dataclass(frozen=True)
class VerifierEvidence:
    """What the official verifier said about a rollout's final state."""

    passed: bool
    reward: float | None
    exit_code: int | None
    timed_out: bool
    reason: str
    """One line: the verdict and, when it failed, the verifier's most telling output line."""
    output: str
    """Tail of the verifier's stdout and stderr."""
    reward_files: dict[str, str] = field(default_factory=dict)
    """reward.txt / reward.json as the verifier wrote them."""


@dataclass(frozen=True)
class RolloutResult:
    """What came back from a rollout, as data (no shared filesystem assumed)."""

    key: str
    status: RolloutStatus
    usage: Usage | None
    """None when any call's usage is unknown (`ModelCall.usage`)."""
    cost: float | None
    latency_s: float
    n_calls: int
    official_pass: bool | None
    trajectory: str
    gateway_log: str
    workspace: Mapping[str, bytes] = field(repr=False)
    """The working directory afterwards (a `harnesspro.sandbox.snapshot.Snapshot`)."""
    detail: str = ""
    reason: str = ""
    """One line saying why a rollout is not `ok`."""
    verifier: VerifierEvidence | None = None
    """The official verifier's evidence (None when it could not run)."""
    chat_log: str = ""
    """The gateway's chat.jsonl: every answered call's messages and reply."""


@dataclass(frozen=True)
class Candidate:
    """One harness version: an immutable commit of the run's harness repository."""

    id: str
    commit: str
    tree: str
    parent: str | None
    directive: str | None
    mechanism: str | None
    epoch: int


@dataclass(frozen=True)
class Diagnosis:
    """A problem the analyzer saw in a candidate's G rollouts of one task."""

    candidate_id: str
    task_id: str
    kind: str
    count: int
    of: int
    effect_pass: float
    effect_cost: float
    evidence: str


PlanKind = Literal["catalog", "free"]
Scope = Literal["invariant", "domain"]


@dataclass(frozen=True)
class Plan:
    """One change under one directive, with its predicted effect.

    A `catalog` plan applies the catalog mechanism named `mechanism`; a `free` plan is
    written in words (`change`) by an llm planner, `mechanism` being its short name.
    """

    parent_id: str
    directive: Directive
    mechanism: str
    rationale: str
    predicted_pass: float
    predicted_cost: float
    kind: PlanKind = "catalog"
    levers: tuple[str, ...] = ()
    """The levers the change touches (mechanisms.catalog.LEVERS)."""
    change: str = ""
    """The change in words (free plans)."""
    files: tuple[str, ...] = ()
    """Harness files the change will touch."""
    expected_flips: tuple[str, ...] = ()
    """Coreset tasks the planner expects to change verdict."""
    scope: Scope = "invariant"
    """`invariant`: how the agent works (planning, tool use, context, budgets); `domain`:
    what a practitioner of the task family knows."""
    pass_interval: tuple[float, ...] = ()
    """(low, high) of the predicted pass-rate change as it will be measured; () = a point
    prediction (planner/catalog.py:check_prediction gives it a tolerance)."""
    cost_interval: tuple[float, ...] = ()
    """(low, high) of the predicted relative cost change; () = a point prediction."""
    finding: str = ""
    """The analyzer's finding the change answers (its kind, where, how often, its measured
    impact); '' when it answers none (a region of the front, or a screening row)."""


@dataclass(frozen=True)
class Score:
    """Aggregate of a candidate's scored rollouts on a split."""

    candidate_id: str
    pass_rate: float
    cost_per_task: float
    tokens_per_task: float
    """NaN when any rollout's token counts are unknown (a provider that reports no usage)."""
    n_rollouts: int
    calls_per_task: float = math.nan
    """Model calls per rollout: always counted, the cost axis of last resort."""


@dataclass(frozen=True)
class Trace:
    """One train-split rollout as the improvers may see it."""

    key: str
    candidate_id: str
    task_id: str
    passed: bool
    trajectory: str
    output_tokens: int | None
    """None (and the input parts too) when the provider reported no usage."""
    n_calls: int
    uncached_input: int | None = 0
    cached_input: int | None = 0
    status: str = "ok"

    @property
    def cached_share(self) -> float | None:
        """Share of input tokens the provider served from its prefix cache (None: unknown)."""
        if self.uncached_input is None or self.cached_input is None:
            return None
        total = self.uncached_input + self.cached_input
        return self.cached_input / total if total else None


Verdict = Literal["helped", "hurt", "no effect", "confounded"]


@dataclass(frozen=True)
class Effect:
    """A plan's measured effect on its child against the parent, and the verdict."""

    d_pass: float
    d_cost: float | None
    """Relative change of cost per task; None when either cost is unknown."""
    verdict: Verdict
    why: str
