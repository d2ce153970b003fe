"""A programmable OpenAI-compatible HTTP server on loopback: fault injection in tests and
the upstream of the gateway's latency benchmark (docs/benchmarks.md#overheads-measured-once)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OK = {
    "id": "chatcmpl-fake",
    "object": "chat.completion",
    "created": 0,
    "model": "fake-model",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ],
    "usage": {
        "prompt_tokens": 1200,
        "completion_tokens": 30,
        "total_tokens": 1230,
        "prompt_tokens_details": {"cached_tokens": 1024},
    },
}
OK_TOKENS = 1230  # OK's usage: 1200 prompt tokens (1024 of them cached) + 30 completion
CHUNK = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "fake-model"}


class _Server(ThreadingHTTPServer):
    """The HTTP server of one fake provider (its handler reaches the provider through it)."""

    daemon_threads = True

    def __init__(self, provider: FakeProvider) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.provider = provider


class _Handler(BaseHTTPRequestHandler):
    """Serves one request with the provider's next behaviour (`_<kind>` below)."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes: without this, Nagle's algorithm and delayed
        # ACKs add ~40 ms to every keep-alive response.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        provider = self.server.provider
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        provider.requests.append(body)
        provider.headers.append({k.lower(): v for k, v in self.headers.items()})
        kind = provider.behaviours.pop(0) if provider.behaviours else provider.default
        getattr(self, f"_{kind[0]}")(*kind[1:])

    def _bill(self, tokens: int = 0, unmetered: int = 0) -> None:
        self.server.provider.bill(tokens, unmetered)

    def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()

    def _ok(self) -> None:
        self._bill(OK_TOKENS)
        self._send(200, json.dumps(OK).encode())

    def _say(self, content: str) -> None:
        self._bill(OK_TOKENS)
        message = {"role": "assistant", "content": content}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        self._send(200, json.dumps({**OK, "choices": [choice]}).encode())

    def _no_usage(self) -> None:
        self._bill(unmetered=1)
        self._send(200, json.dumps({k: v for k, v in OK.items() if k != "usage"}).encode())

    def _no_choices(self) -> None:
        self._bill(OK_TOKENS)
        self._send(200, json.dumps({"id": "x", "usage": OK["usage"]}).encode())

    def _cut(self) -> None:
        self._bill(unmetered=1)
        self._start_stream()
        chunk = {**CHUNK, "choices": [{"index": 0, "delta": {"content": "hel"}}]}
        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.close_connection = True

    def _status(self, code: int, retry_after: float | None) -> None:
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        error = {"error": {"message": f"fake {code}", "type": "fake"}}
        self._send(code, json.dumps(error).encode(), headers)

    def _malformed(self) -> None:
        self._bill(unmetered=1)
        self._send(200, b'{"choices": [')

    def _hang(self, seconds: float) -> None:
        time.sleep(seconds)

    def _stream_no_usage(self) -> None:
        self._stream(usage=False)

    def _stream(self, usage: bool = True) -> None:
        if usage:
            self._bill(OK_TOKENS)
        else:
            self._bill(unmetered=1)
        self._start_stream()
        for piece in ("hel", "lo"):
            delta = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps({**CHUNK, **delta})}\n\n".encode())
            self.wfile.flush()
        stop = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        final = {**CHUNK, "choices": [], "usage": OK["usage"]} if usage else {**CHUNK, **stop}
        self.wfile.write(f"data: {json.dumps(final)}\n\ndata: [DONE]\n\n".encode())
        self.close_connection = True


class FakeProvider:
    """Answers each request with the next scripted behaviour, then with `default` (OK).

    Behaviours: ("ok",), ("say", text) - OK with `text` as the message's content,
    ("status", code, retry_after_or_None), ("malformed",), ("hang", s),
    ("stream",) - a streamed answer whose last chunk carries usage, ("no_choices",) - a 200
    answer with usage but no choices, ("no_usage",) - a 200 answer without a usage object,
    ("cut",) - a stream cut off before its usage chunk,
    ("stream_no_usage",) - a complete stream with no usage chunk at all (llama-cpp-python's
    server sends none, whatever `stream_options` asks).

    `served_tokens` counts the tokens of every answer that reported usage, as a provider
    would bill them; `unmetered` counts answers that were billed without a readable usage
    (malformed, cut off).
    """

    def __init__(
        self, behaviours: list[tuple[Any, ...]], default: tuple[Any, ...] = ("ok",)
    ) -> None:
        self.behaviours = list(behaviours)
        self.default = default
        """The behaviour once the scripted ones are used up."""
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.served_tokens = 0
        self.unmetered = 0
        self._lock = threading.Lock()
        self.server = _Server(self)

    def bill(self, tokens: int = 0, unmetered: int = 0) -> None:
        """Count an answer as a provider would bill it."""
        with self._lock:
            self.served_tokens += tokens
            self.unmetered += unmetered

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@contextmanager
def fake_provider(
    behaviours: list[tuple[Any, ...]], default: tuple[Any, ...] = ("ok",)
) -> Iterator[FakeProvider]:
    """A fake provider serving on loopback while the block runs."""
    provider = FakeProvider(behaviours, default)
    thread = threading.Thread(target=provider.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        provider.server.shutdown()
        provider.server.server_close()
