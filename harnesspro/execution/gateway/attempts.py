"""Failed upstream attempts of one model call: what they cost, what the harness sees, and a
stream's first chunk pulled before anything is relayed (so a failing connection is retried)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from harnesspro.core.records import Usage
from harnesspro.core.retry import UpstreamError
from harnesspro.execution.gateway.usage import normalise_usage

T = TypeVar("T")


@dataclass
class Attempts:
    """What the failed upstream attempts of one call cost: their reported usage, and whether
    any of them may have been billed for tokens nobody can count."""

    usage: Usage = field(default_factory=Usage)
    unknown: bool = False

    def add(self, error: UpstreamError) -> None:
        self.usage = self.usage + normalise_usage(error.usage)
        self.unknown = self.unknown or error.maybe_billed


def status_for(exc: UpstreamError) -> int:
    """What the harness sees for an upstream failure: 502 for transient ones, else as sent."""
    return 502 if exc.transient else exc.status


def counting(call: Callable[[], T], failed: Attempts) -> Callable[[], T]:
    """`call`, noting what each failed attempt cost before the retry loop sees the error."""

    def attempt() -> T:
        try:
            return call()
        except UpstreamError as error:
            failed.add(error)
            raise

    return attempt


def first_and_rest(chunks: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Pull the first chunk now, so a failing connection is retried before anything is sent."""
    first = next(chunks, None)

    def rest() -> Iterator[dict[str, Any]]:
        if first is not None:
            yield first
        yield from chunks

    return rest()
