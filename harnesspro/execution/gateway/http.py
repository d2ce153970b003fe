"""The gateway's HTTP side: a threaded server on a Unix socket and the request handler that
routes `GET /v1/models` and `POST /v1/chat/completions` to the metering gateway."""

from __future__ import annotations

import json
import socketserver
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar, Protocol

from harnesspro.execution.gateway.limits import GatewayLimits, content_length, drain

Reply = tuple[int, dict[str, Any]]


class Answers(Protocol):
    """What the handler asks of the gateway (`server.Gateway`)."""

    model: str
    limits: GatewayLimits

    def refuse_large(self, token: str, size: int) -> Reply: ...
    def chat(self, token: str, body: Any) -> Reply: ...
    def chat_stream(self, token: str, body: Any) -> tuple[int, Iterator[bytes]]: ...


class UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A harness killed mid-call (its rollout timed out) closes the socket: not an error.
        if not isinstance(sys.exc_info()[1], BrokenPipeError | ConnectionResetError):
            super().handle_error(request, client_address)


def error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind}}


class GatewayHandler(BaseHTTPRequestHandler):
    """One connection's requests; `gateway` is set on a subclass per gateway (`handler_for`)."""

    protocol_version = "HTTP/1.1"
    gateway: ClassVar[Answers]

    def address_string(self) -> str:  # Unix sockets have no peer address
        return "unix"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, status: int, parts: Iterator[bytes]) -> None:
        self.send_response(status)
        self.send_header(
            "Content-Type", "text/event-stream" if status == 200 else "application/json"
        )
        self.send_header("Connection", "close")
        self.end_headers()
        for part in parts:
            self.wfile.write(part)
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            models = [{"id": self.gateway.model, "object": "model", "owned_by": "harnesspro"}]
            self._send(200, {"object": "list", "data": models})
        else:
            self._send(404, error(f"no route {self.path}", "not_found"))

    def _body(self, token: str) -> bytes | None:
        """The request's body, or None when it was refused (the reply is sent)."""
        length = content_length(self.headers.get("Content-Length"))
        if length is None:
            self.close_connection = True
            self._send(400, error("Content-Length is not a byte count", "invalid_request"))
            return None
        if length > self.gateway.limits.request_max:
            # Refused from the header; the body is dropped as it comes, never held.
            self.close_connection = True
            self._send(*self.gateway.refuse_large(token, length))
            self.wfile.flush()
            drain(self.rfile, self.connection, length, self.gateway.limits)
            return None
        return self.rfile.read(length)

    def do_POST(self) -> None:
        token = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
        raw = self._body(token)
        if raw is None:
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, error(f"no route {self.path}", "not_found"))
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send(400, error("request body is not JSON", "invalid_request"))
            return
        if isinstance(body, dict) and body.get("stream"):
            self._send_stream(*self.gateway.chat_stream(token, body))
        else:
            self._send(*self.gateway.chat(token, body))


def handler_for(gateway: Answers) -> type[GatewayHandler]:
    """A handler class bound to one gateway."""
    return type("Handler", (GatewayHandler,), {"gateway": gateway})
