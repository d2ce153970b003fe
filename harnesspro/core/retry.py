"""Retrying upstream calls: jittered exponential backoff that honours Retry-After, bounded in
attempts and in total time. Only transient failures are retried."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class UpstreamError(Exception):
    """An upstream failure: HTTP status (0 = no response), an OpenAI-style body, Retry-After."""

    def __init__(
        self,
        status: int,
        message: str,
        retry_after: float | None = None,
        usage: dict[str, Any] | None = None,
        maybe_billed: bool = False,
        final: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.retries = 0
        self.usage = usage
        """The usage a failed reply still reported (a 200 answer that did not parse, say)."""
        self.maybe_billed = maybe_billed
        """The upstream may have generated (and billed) tokens we cannot count: a reply cut
        off, unparseable, or timed out after the request was sent."""
        self.final = final
        """Never send this call again, whatever its status (a timed-out call to a local
        server, which would queue the same work behind itself)."""

    @property
    def transient(self) -> bool:
        """Worth retrying: no response or a malformed one (status 0), 408, 409, 429, 5xx,
        unless the call is final."""
        if self.final:
            return False
        return self.status == 0 or self.status in RETRYABLE_STATUS


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4
    """Attempts in all (1 = no retry)."""
    base_s: float = 0.5
    """First backoff; doubles each retry."""
    cap_s: float = 8.0
    """Longest single wait (Retry-After included)."""
    budget_s: float = 30.0
    """Longest total time spent waiting for one call."""

    def delay(self, retry: int, error: UpstreamError, rng: random.Random) -> float:
        """Full-jitter backoff, or the server's Retry-After when it names one."""
        if error.retry_after is not None:
            return min(max(error.retry_after, 0.0), self.cap_s)
        return rng.uniform(0, min(self.cap_s, self.base_s * 2**retry))


MIN_ATTEMPT_S = 1.0
MAX_ATTEMPT_S = 120.0


def fitted(policy: RetryPolicy, rollout_timeout_s: float) -> tuple[RetryPolicy, float]:
    """The retry policy and per-attempt timeout for a rollout of `rollout_timeout_s`, so that
    one hung attempt, the wait and a retry fit inside the rollout's time: each attempt gets
    at most a quarter of it, and the waits of one call at most another quarter."""
    quarter = rollout_timeout_s / 4
    attempt_s = max(MIN_ATTEMPT_S, min(MAX_ATTEMPT_S, quarter))
    budget_s = min(policy.budget_s, quarter)
    cap_s = min(policy.cap_s, budget_s)
    return RetryPolicy(policy.max_attempts, policy.base_s, cap_s, budget_s), attempt_s


def with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> tuple[T, int]:
    """(result, retries used); raises the last UpstreamError when retries run out."""
    rng = rng or random.Random()
    waited = 0.0
    for attempt in range(policy.max_attempts):
        try:
            return call(), attempt
        except UpstreamError as error:
            last = attempt == policy.max_attempts - 1
            pause = policy.delay(attempt, error, rng)
            if not error.transient or last or waited + pause > policy.budget_s:
                error.retries = attempt
                raise
            sleep(pause)
            waited += pause
    raise AssertionError("unreachable: the loop returns or raises")
