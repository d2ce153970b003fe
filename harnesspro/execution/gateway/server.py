"""The metering gateway: OpenAI Chat Completions on a Unix socket, every call metered.

Per call it checks the rollout's budget, forwards with bounded retries, normalises usage,
prices it and logs usage parts, dollars, latency, upstream status and retry count. Requests,
answers and the chat log are size-capped (`GatewayLimits`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harnesspro.core.model_config import Price
from harnesspro.core.records import ModelCall, Usage
from harnesspro.core.retry import RetryPolicy, UpstreamError, with_retries
from harnesspro.core.rollout_budget import RolloutBudget, Spent
from harnesspro.execution.gateway.attempts import Attempts, counting, first_and_rest, status_for
from harnesspro.execution.gateway.chatlog import ChatLog, assemble, first_message
from harnesspro.execution.gateway.http import UnixHTTPServer, error, handler_for
from harnesspro.execution.gateway.limits import TOO_LARGE_STATUS, GatewayLimits, too_large
from harnesspro.execution.gateway.prices import cost_of
from harnesspro.execution.gateway.shape import request_shape
from harnesspro.execution.gateway.streaming import sse
from harnesspro.execution.gateway.upstream import Upstream
from harnesspro.execution.gateway.usage import estimated_tokens, normalise_usage
from harnesspro.sandbox.user import share_socket

USAGE_PARTS = ("uncached_input", "cached_input", "cache_write", "output", "reasoning")
BUDGET_STATUS = 402  # not retried by OpenAI clients, unlike 429


@dataclass
class Account:
    """One rollout's (or the search's) token: its sampling seed and what it has spent."""

    sampling_seed: str
    spent: Spent = field(default_factory=Spent)


class Gateway:
    """Meters one model behind one Unix socket for the tokens registered with it."""

    def __init__(
        self,
        socket_path: Path,
        upstream: Upstream,
        model: str,
        price: Price | None,
        budget: RolloutBudget | None = None,
        retry: RetryPolicy | None = None,
        limits: GatewayLimits | None = None,
    ) -> None:
        self.socket_path, self.upstream, self.model, self.price = (
            socket_path,
            upstream,
            model,
            price,
        )
        self.budget = budget or RolloutBudget()
        self.retry = retry or RetryPolicy()
        self.limits = limits or GatewayLimits()
        self.accounts: dict[str, Account] = {}
        self.calls: list[ModelCall] = []
        self.log: list[str] = []
        self.chat_log = ChatLog(max_bytes=self.limits.chat_log_max)
        """Messages and replies of every answered call (chat.jsonl)."""
        self._lock = threading.Lock()
        self.in_flight = 0
        """Calls being answered right now (a rollout killed with one pending is our fault)."""
        self._closed = False
        self._server = UnixHTTPServer(str(socket_path), handler_for(self))
        share_socket(socket_path)  # sandboxed commands run as an unprivileged user
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def register(self, token: str, sampling_seed: str) -> None:
        """Accept calls bearing `token`; the scripted upstream samples from `sampling_seed`."""
        self.accounts[token] = Account(sampling_seed)

    def __enter__(self) -> Gateway:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            # A call still waiting on the upstream may be billed: its spend is unknown.
            for _ in range(self.in_flight):
                call = ModelCall(self.model, None, None, 0.0, 0, 0)
                self.calls.append(call)
                self.log.append(json.dumps({"token": "in-flight", **call_fields(call)}))
            self._closed = True
        self._server.shutdown()
        self._server.server_close()
        self.socket_path.unlink(missing_ok=True)

    # -- one call ---------------------------------------------------------------------------
    def _admit(self, token: str, body: Any) -> tuple[int, dict[str, Any]] | Account:
        account = self.accounts.get(token)
        if account is None:
            return 401, error("unknown rollout token", "invalid_api_key")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return 400, error("the body must be a JSON object with `messages`", "invalid_request")
        exhausted = account.spent.over(self.budget)
        if exhausted:
            self._record(token, Usage(), 0.0, BUDGET_STATUS, 0)  # never sent: nothing billed
            return BUDGET_STATUS, error(f"budget_exhausted: {exhausted}", "budget_exhausted")
        return account

    def refuse_large(self, token: str, size: int) -> tuple[int, dict[str, Any]]:
        """Refuse a request body of `size` bytes, over the cap, without having read it."""
        if token not in self.accounts:
            return 401, error("unknown rollout token", "invalid_api_key")
        self._record(token, Usage(), 0.0, TOO_LARGE_STATUS, 0)  # never sent: nothing billed
        cap = self.limits.request_max
        message = too_large("the request body", size, cap, "send a shorter request")
        return TOO_LARGE_STATUS, error(message, "request_too_large")

    def chat(self, token: str, body: Any) -> tuple[int, dict[str, Any]]:
        """Forward one non-streaming request; returns (HTTP status, JSON body)."""
        admitted = self._admit(token, body)
        if not isinstance(admitted, Account):
            return admitted
        started, failed = time.monotonic(), Attempts()
        self._begin()
        try:
            response, retries = with_retries(
                counting(lambda: self.upstream.complete(body, admitted.sampling_seed), failed),
                self.retry,
            )
        except UpstreamError as exc:
            elapsed = time.monotonic() - started
            status = status_for(exc)
            spent = None if failed.unknown else failed.usage
            self._record(token, spent, elapsed, status, exc.retries, body, landed=True)
            return status, error(f"upstream failed: {exc}", "upstream_error")
        except BaseException:
            self._end()
            raise
        reported = response.get("usage")
        # An answer without a usage object was billed for tokens nobody counted: unknown.
        usage = None
        if not failed.unknown and isinstance(reported, dict):
            usage = failed.usage + normalise_usage(reported)
        elapsed = time.monotonic() - started
        message = first_message(response)
        size = len(json.dumps(response))
        if size > self.limits.response_max:
            self._record(token, usage, elapsed, TOO_LARGE_STATUS, retries, body, landed=True)
            return TOO_LARGE_STATUS, self._answer_too_large(size)
        self._record(token, usage, elapsed, 200, retries, body, message, landed=True)
        with self._lock:
            self.chat_log.add(token, body, message)
        return 200, self._priced(response, usage)

    def _priced(self, response: dict[str, Any], usage: Usage | None) -> dict[str, Any]:
        """The answer with the call's cost in dollars as `usage.cost` (as OpenRouter reports
        it) when it is known, so a harness can keep its own cost limit; the gateway's log
        stays the record that bills."""
        reported = response.get("usage")
        if self.price is None or usage is None or not isinstance(reported, dict):
            return response
        return {**response, "usage": {**reported, "cost": cost_of(usage, self.price)}}

    def _answer_too_large(self, size: int) -> dict[str, Any]:
        cap = self.limits.response_max
        advice = "ask for a shorter answer (fewer choices or output tokens)"
        return error(too_large("the model's answer", size, cap, advice), "response_too_large")

    def _begin(self) -> None:
        with self._lock:
            self.in_flight += 1

    def _end(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def chat_stream(self, token: str, body: Any) -> tuple[int, Iterator[bytes]]:
        """Forward one streaming request chunk by chunk; usage comes from the last chunk."""
        admitted = self._admit(token, body)
        if not isinstance(admitted, Account):
            status, payload = admitted
            return status, iter([json.dumps(payload).encode()])
        return 200, self._relay(token, body, admitted)

    def _relay(self, token: str, body: dict[str, Any], account: Account) -> Iterator[bytes]:
        started, usage, status, failed = time.monotonic(), None, 200, Attempts()
        seen: list[dict[str, Any]] = []
        landed = False
        self._begin()
        try:
            try:
                chunks, retries = with_retries(
                    counting(
                        lambda: first_and_rest(self.upstream.stream(body, account.sampling_seed)),
                        failed,
                    ),
                    self.retry,
                )
                sent = 0
                for chunk in chunks:
                    if chunk.get("usage"):
                        usage = normalise_usage(chunk["usage"])
                    event = sse(chunk)
                    sent += len(event)
                    if sent > self.limits.response_max:
                        # Billed for what streamed so far, which nobody counted: unknown.
                        status, failed.unknown = TOO_LARGE_STATUS, failed.unknown or not usage
                        yield sse(self._answer_too_large(sent))
                        break
                    seen.append(chunk)
                    yield event
            except UpstreamError as exc:
                status, retries = status_for(exc), exc.retries
                failed.unknown = failed.unknown or (exc.maybe_billed and usage is None)
                yield sse(error(f"upstream failed: {exc}", "upstream_error"))
            # A stream that ended (or broke) without a usage chunk leaves usage and cost unknown.
            known = not failed.unknown and (usage is not None or status != 200)
            total = failed.usage + (usage or Usage()) if known else None
            message = assemble(seen)
            elapsed = time.monotonic() - started
            self._record(token, total, elapsed, status, retries, body, message, landed=True)
            landed = True
            if status == 200:
                with self._lock:
                    self.chat_log.add(token, body, message)
        finally:
            if not landed:  # the client hung up mid-stream
                self._end()
        # The end marker goes out only once the call is metered: a client that saw the whole
        # answer never finds it missing from the ledger.
        yield sse(None)

    def _record(
        self,
        token: str,
        usage: Usage | None,
        latency: float,
        status: int,
        retries: int,
        shape: dict[str, Any] | None = None,
        reply: dict[str, Any] | None = None,
        landed: bool = False,
    ) -> None:
        """Meter one call (`usage` None = unknown); `shape` is the request, logged as digests
        (`request_shape`). An unknown usage is charged to the token budget as an estimate from
        the request and `reply` (`estimated_tokens`), so a runaway rollout still stops.
        `landed`: the call was in flight and leaves flight in the same step, so a gateway that
        closes meanwhile counts it exactly once (in flight, or here)."""
        cost = None if self.price is None or usage is None else cost_of(usage, self.price)
        call = ModelCall(self.model, usage, cost, latency, status, retries)
        with self._lock:
            self.in_flight -= landed
            if self._closed:
                return  # counted as in flight (unknown) when the gateway closed
            spent = self.accounts[token].spent
            spent.calls += status != BUDGET_STATUS
            spent.tokens += usage.total if usage else estimated_tokens(shape, reply)
            spent.dollars += cost or 0.0
            self.calls.append(call)
            line = {"token": token[:8], **call_fields(call)}
            if shape is not None:
                line["shape"] = request_shape(shape)
            self.log.append(json.dumps(line))


def call_fields(call: ModelCall) -> dict[str, Any]:
    """A call as the flat record written to gateway.jsonl."""
    usage = call.usage
    return {
        "model": call.model,
        "status": call.status,
        "retries": call.retries,
        "latency_s": round(call.latency_s, 4),
        "cost": call.cost,
        # unknown usage is null in every part, never 0
        **{part: None if usage is None else getattr(usage, part) for part in USAGE_PARTS},
    }
