"""The seed agent's own HTTP client against the standard library's HTTP server."""

from __future__ import annotations

import importlib
import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

SEED = Path(__file__).resolve().parent.parent / "harnesspro" / "harness" / "seed"
seen: list[tuple[str, str, dict[str, object]]] = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # as the gateway's: it must close after an HTTP/1.0 request

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        seen.append((self.path, self.headers["Authorization"], body))
        status, reply = (429, b"rate limited: retry later") if body.get("refuse") else (200, b"")
        reply = reply or json.dumps({"choices": [{"message": {"content": "ok"}}]}).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def agent(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "tok-123")
    monkeypatch.syspath_prepend(str(SEED))
    for name in [m for m in sys.modules if m == "agent" or m.startswith("agent.")]:
        monkeypatch.delitem(sys.modules, name)
    yield importlib.import_module("agent.__main__")
    server.shutdown()


def test_the_seed_posts_over_a_socket_and_reads_the_reply(agent: ModuleType) -> None:
    seen.clear()
    reply = agent.post({"model": "m", "messages": [{"role": "user", "content": "héllo"}]})
    assert reply == {"choices": [{"message": {"content": "ok"}}]}
    assert seen == [
        (
            "/v1/chat/completions",
            "Bearer tok-123",
            {"model": "m", "messages": [{"role": "user", "content": "héllo"}]},
        )
    ]


def test_an_http_error_is_a_model_error_with_the_body(agent: ModuleType) -> None:
    with pytest.raises(agent.ModelError, match="HTTP 429: rate limited: retry later"):
        agent.post({"refuse": True})
