"""Any OpenAI-compatible endpoint through the openai SDK, passing bodies through unchanged.

The provider key lives only in this process: it is never logged, never put in a response and
never sent into the sandbox.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import openai

from harnesspro.core.retry import UpstreamError
from harnesspro.execution.gateway.streaming import parse_sse

try:  # newer SDKs ship httpx2; the raw response type is whichever the SDK uses
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed SDK
    import httpx  # type: ignore[no-redef]


def _retry_after(headers: Mapping[str, str]) -> float | None:
    try:
        return float(headers.get("retry-after", ""))
    except ValueError:
        return None


class OpenAIUpstream:
    """Raw pass-through: the request body goes out as sent, the response body comes back as is."""

    def __init__(self, base_url: str | None, api_key: str, timeout_s: float = 120.0) -> None:
        # Retries are ours (counted and bounded in the gateway), not the SDK's.
        self.client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "unset", max_retries=0, timeout=timeout_s
        )

    def _post(self, body: Mapping[str, Any], stream: bool) -> Any:
        try:
            if stream:
                return self.client.post(
                    "/chat/completions", body=dict(body), cast_to=httpx.Response, stream=True,
                    stream_cls=openai.Stream[httpx.Response],
                )  # fmt: skip
            return self.client.post("/chat/completions", body=dict(body), cast_to=httpx.Response)
        except openai.APIStatusError as exc:
            headers = {k.lower(): v for k, v in exc.response.headers.items()}
            raise UpstreamError(exc.status_code, _message(exc), _retry_after(headers)) from None
        except openai.APITimeoutError as exc:
            # The request went out: the provider may be generating (and billing) an answer.
            raise UpstreamError(0, f"{exc.__class__.__name__}: {exc}", maybe_billed=True) from None
        except openai.APIConnectionError as exc:
            raise UpstreamError(0, f"{exc.__class__.__name__}: {exc}") from None

    def complete(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        response = self._post({**request, "stream": False}, stream=False)
        try:
            body = response.json()
        except (json.JSONDecodeError, ValueError):
            # A 200 answer was sent and billed, but its usage cannot be read: unknown, not 0.
            raise UpstreamError(
                0, "upstream answered with malformed JSON", maybe_billed=True
            ) from None
        if not isinstance(body, dict) or "choices" not in body:
            usage = body.get("usage") if isinstance(body, dict) else None
            known = usage if isinstance(usage, dict) else None
            raise UpstreamError(
                0, "upstream answer has no choices", usage=known, maybe_billed=known is None
            )
        return body

    def stream(self, request: Mapping[str, Any], sampling_seed: str) -> Iterator[dict[str, Any]]:
        response = self._post(request, stream=True)
        try:
            yield from parse_sse(response.iter_lines())
        except (json.JSONDecodeError, httpx.HTTPError) as exc:
            message = f"stream broke off: {exc.__class__.__name__}"
            raise UpstreamError(0, message, maybe_billed=True) from None


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error", body)
    text = error.get("message") if isinstance(error, dict) else None
    return f"HTTP {exc.status_code}: {text or exc.message}"[:500]
