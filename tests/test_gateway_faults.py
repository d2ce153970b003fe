"""Gateway resilience, budgets, streaming and key hygiene against a fake provider."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import pytest
from openai import DefaultHttpxClient, OpenAI

from harnesspro.core.retry import RetryPolicy, UpstreamError, with_retries
from harnesspro.core.rollout_budget import RolloutBudget
from harnesspro.execution.fakes.provider import OK, fake_provider
from harnesspro.execution.gateway.server import Gateway
from tests.conftest import FAKE_PRICE, FAST_RETRY, gateway_to

PRICE, FAST = FAKE_PRICE, FAST_RETRY
BODY = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}


def client(gw: Gateway) -> OpenAI:
    transport = type(DefaultHttpxClient()._transport)(uds=str(gw.socket_path))
    return OpenAI(
        base_url="http://gateway/v1",
        api_key="rollout-token-abcdef",
        http_client=DefaultHttpxClient(transport=transport),
        max_retries=0,
    )


def test_usage_and_cost_are_recorded_exactly() -> None:
    with fake_provider([("ok",)]) as provider, gateway_to(provider.base_url) as gw:
        status, body = gw.chat("rollout-token-abcdef", dict(BODY))
    (call,) = gw.calls
    # The body comes back unchanged but for the call's dollars, added as usage.cost.
    assert body["usage"].pop("cost") == pytest.approx(call.cost)
    assert status == 200 and body == OK
    assert (call.usage.uncached_input, call.usage.cached_input, call.usage.output) == (
        176,
        1024,
        30,
    )
    assert call.cost == pytest.approx((176 * 2.0 + 1024 * 0.5 + 30 * 8.0) / 1e6)
    assert provider.requests[0]["messages"] == BODY["messages"]


def test_429_with_retry_after_then_success_is_retried() -> None:
    behaviours = [("status", 429, 0.2), ("status", 500, None)]
    with fake_provider(behaviours) as provider, gateway_to(provider.base_url) as gw:
        started = time.monotonic()
        status, _ = gw.chat("rollout-token-abcdef", dict(BODY))
        elapsed = time.monotonic() - started
    assert status == 200 and len(provider.requests) == 3
    assert gw.calls[0].retries == 2
    assert elapsed >= 0.2  # Retry-After was honoured


@pytest.mark.parametrize(
    "failure", [("status", 500, None), ("malformed",), ("hang", 3.0), ("status", 503, 0.01)]
)
def test_persistent_failures_are_bounded_and_end_as_infrastructure_errors(
    failure: tuple[object, ...],
) -> None:
    with fake_provider([failure] * 5) as provider, gateway_to(provider.base_url) as gw:
        status, body = gw.chat("rollout-token-abcdef", dict(BODY))
    assert status == 502 and body["error"]["type"] == "upstream_error"
    assert len(provider.requests) == FAST.max_attempts  # bounded
    assert gw.calls[0].status == 502 and gw.calls[0].retries == FAST.max_attempts - 1


def test_client_errors_are_passed_through_without_retry() -> None:
    with fake_provider([("status", 400, None)]) as provider, gateway_to(provider.base_url) as gw:
        status, body = gw.chat("rollout-token-abcdef", dict(BODY))
    assert status == 400 and "fake 400" in body["error"]["message"]
    assert len(provider.requests) == 1


def test_retry_time_budget_bounds_waiting() -> None:
    sleeps: list[float] = []
    policy = RetryPolicy(max_attempts=10, base_s=1.0, cap_s=4.0, budget_s=5.0)

    def failing() -> None:
        raise UpstreamError(503, "down", retry_after=2.0)

    with pytest.raises(UpstreamError):
        with_retries(failing, policy, sleep=sleeps.append)
    assert sleeps == [2.0, 2.0]  # a third wait would pass the 5 s budget


def test_streaming_pass_through_with_usage_in_the_final_chunk() -> None:
    with fake_provider([("stream",)]) as provider, gateway_to(provider.base_url) as gw:
        stream = client(gw).chat.completions.create(
            **BODY,
            stream=True,
            stream_options={"include_usage": True},  # type: ignore[arg-type]
        )
        chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "hello"
    assert chunks[-1].usage is not None and chunks[-1].usage.prompt_tokens == 1200
    (call,) = gw.calls
    assert (call.usage.cached_input, call.usage.output) == (1024, 30)
    assert provider.requests[0]["stream"] is True


def test_a_stream_is_metered_before_its_end_marker_goes_out() -> None:
    # A client that has read `[DONE]` may end the rollout and close the gateway at once: by
    # then the call must be in the ledger, or it is lost (neither metered nor in flight).
    with fake_provider([("stream",)]) as provider, gateway_to(provider.base_url) as gw:
        status, events = gw.chat_stream("rollout-token-abcdef", dict(BODY, stream=True))
        metered_at_done = [len(gw.calls) for event in events if event == b"data: [DONE]\n\n"]
        assert status == 200 and metered_at_done == [1] and gw.in_flight == 0


def test_rollout_budget_refuses_calls_with_a_bounded_overshoot() -> None:
    budget = RolloutBudget(max_calls=2)
    with fake_provider([]) as provider, gateway_to(provider.base_url, budget=budget) as gw:
        answers = [gw.chat("rollout-token-abcdef", dict(BODY))[0] for _ in range(4)]
    assert answers == [200, 200, 402, 402]
    assert len(provider.requests) == 2  # refused calls never reach the provider
    tokens = RolloutBudget(max_tokens=1000)  # each call uses 1230 tokens
    with fake_provider([]) as provider, gateway_to(provider.base_url, budget=tokens) as gw:
        answers = [gw.chat("rollout-token-abcdef", dict(BODY))[0] for _ in range(3)]
    # The call that crosses the cap completes; overshoot is at most that one call's usage.
    assert answers == [200, 402, 402]


def test_the_provider_key_never_leaves_the_gateway() -> None:
    with (
        fake_provider([("ok",), ("status", 401, None)]) as provider,
        gateway_to(provider.base_url) as gw,
    ):
        _, ok = gw.chat("rollout-token-abcdef", dict(BODY))
        _, refused = gw.chat("rollout-token-abcdef", dict(BODY))
    assert (
        provider.headers[0]["authorization"] == "Bearer sk-provider-secret"
    )  # it did reach the provider
    exposed = json.dumps(ok) + json.dumps(refused) + "\n".join(gw.log)
    assert "sk-provider-secret" not in exposed
    assert "rollout-token-abcdef" not in "\n".join(gw.log)  # tokens are logged truncated only


def test_a_stream_without_usage_leaves_the_cost_unknown_not_zero() -> None:
    from harnesspro.execution.gateway.upstream import ReplayUpstream

    class NoUsage(ReplayUpstream):
        def stream(self, request, sampling_seed):  # type: ignore[no-untyped-def, override]
            for chunk in super().stream(request, sampling_seed):
                if not chunk.get("usage"):
                    yield chunk

    with tempfile.TemporaryDirectory(prefix="hp-gw-") as tmp:
        gw = Gateway(Path(tmp) / "gw.sock", NoUsage([]), "m", PRICE)
        gw.register("rollout-token-abcdef", "seed")
        with gw:
            status, parts = gw.chat_stream("rollout-token-abcdef", {**BODY, "stream": True})
            b"".join(parts)
    assert status == 200 and gw.calls[0].cost is None
