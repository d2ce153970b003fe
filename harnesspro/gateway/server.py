"""The gateway's HTTP server: OpenAI Chat Completions on a Unix socket, every call metered."""

from __future__ import annotations

import json
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from harnesspro.config import Price
from harnesspro.gateway.prices import cost_of
from harnesspro.gateway.upstream import Upstream
from harnesspro.gateway.usage import normalise_usage
from harnesspro.records import ModelCall, Usage


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind}}


class Gateway:
    """Meters one model behind one Unix socket; tokens map to sampling seeds."""

    def __init__(self, socket_path: Path, upstream: Upstream, model: str, price: Price) -> None:
        self.socket_path = socket_path
        self.upstream = upstream
        self.model = model
        self.price = price
        self.tokens: dict[str, str] = {}
        self.calls: list[ModelCall] = []
        self.log: list[str] = []
        self._lock = threading.Lock()
        self._server = _UnixHTTPServer(str(socket_path), _handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def register(self, token: str, sampling_seed: str) -> None:
        """Accept calls bearing `token`; the scripted upstream samples from `sampling_seed`."""
        self.tokens[token] = sampling_seed

    def __enter__(self) -> Gateway:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.socket_path.unlink(missing_ok=True)

    def chat(self, token: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Forward one request and record its usage; returns (HTTP status, JSON body)."""
        if token not in self.tokens:
            return 401, _error("unknown rollout token", "invalid_api_key")
        if body.get("stream"):
            return 400, _error("streaming is not supported by this gateway yet", "invalid_request")
        started = time.monotonic()
        try:
            response = self.upstream.complete(body, self.tokens[token])
            status = 200
        except Exception as exc:  # any upstream failure is reported, never raised into the server
            response, status = _error(f"upstream failed: {exc}", "upstream_error"), 502
        latency = time.monotonic() - started
        usage = normalise_usage(response.get("usage")) if status == 200 else Usage()
        call = ModelCall(self.model, usage, cost_of(usage, self.price), latency, status)
        with self._lock:
            self.calls.append(call)
            self.log.append(json.dumps({"token": token[:8], **_call_fields(call)}))
        return status, response


def _call_fields(call: ModelCall) -> dict[str, Any]:
    usage = call.usage
    return {
        "model": call.model,
        "status": call.status,
        "latency_s": round(call.latency_s, 4),
        "cost": call.cost,
        "uncached_input": usage.uncached_input,
        "cached_input": usage.cached_input,
        "cache_write": usage.cache_write,
        "output": usage.output,
        "reasoning": usage.reasoning,
    }


def _handler_for(gateway: Gateway) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def address_string(self) -> str:  # Unix sockets have no peer address
            return "unix"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                self._send(
                    200, {"object": "list", "data": [{"id": gateway.model, "object": "model"}]}
                )
            else:
                self._send(404, _error(f"no route {self.path}", "not_found"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, _error(f"no route {self.path}", "not_found"))
                return
            token = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                self._send(400, _error("request body is not JSON", "invalid_request"))
                return
            self._send(*gateway.chat(token, body))

    return Handler
