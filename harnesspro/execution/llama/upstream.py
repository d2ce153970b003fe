"""The upstream for a llama.cpp server the run started on loopback: the OpenAI pass-through,
with one call's own timeout and no second try of a call that timed out."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from harnesspro.core.retry import UpstreamError
from harnesspro.execution.gateway.openai_upstream import OpenAIUpstream


def _final(error: UpstreamError) -> UpstreamError:
    """A timed-out call is not sent again: the single-slot server would compute it twice."""
    if error.maybe_billed and error.status == 0:
        error.final = True
    return error


class LlamaUpstream:
    """`complete` and `stream` of `OpenAIUpstream`, where a timeout is final."""

    def __init__(self, base_url: str, timeout_s: float) -> None:
        self.inner = OpenAIUpstream(base_url, "local", timeout_s=timeout_s)

    def complete(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        try:
            return self.inner.complete(request, sampling_seed)
        except UpstreamError as error:
            raise _final(error) from None

    def stream(self, request: Mapping[str, Any], sampling_seed: str) -> Iterator[dict[str, Any]]:
        try:
            yield from self.inner.stream(request, sampling_seed)
        except UpstreamError as error:
            raise _final(error) from None
