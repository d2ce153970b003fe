"""The gateway's added latency per non-streaming call on loopback: N calls straight to a
local fake provider vs the same calls through the gateway (Unix socket -> gateway -> openai
SDK -> provider). Usage: .venv/bin/python scripts/bench_gateway.py [N]"""

from __future__ import annotations

import http.client
import json
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

from harnesspro.core.model_config import Price
from harnesspro.execution.fakes.provider import fake_provider
from harnesspro.execution.gateway.openai_upstream import OpenAIUpstream
from harnesspro.execution.gateway.server import Gateway

BODY = json.dumps({"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]})


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost")
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def timings(connection: http.client.HTTPConnection, path: str, n: int, token: str) -> list[float]:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    out = []
    for _ in range(n):
        started = time.perf_counter()
        connection.request("POST", path, BODY, headers)
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status
        out.append(time.perf_counter() - started)
    return out


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000


def main(n: int) -> None:
    with fake_provider([]) as provider, tempfile.TemporaryDirectory() as tmp:
        host, port = provider.server.server_address[:2]
        direct = timings(
            http.client.HTTPConnection(str(host), int(port)), "/v1/chat/completions", n, "x"
        )
        upstream = OpenAIUpstream(provider.base_url, "sk-bench")
        gateway = Gateway(Path(tmp) / "gw.sock", upstream, "fake-model", Price(input=1, output=1))
        gateway.register("bench-token", "seed")
        with gateway:
            through = timings(
                UnixConnection(str(gateway.socket_path)), "/v1/chat/completions", n, "bench-token"
            )
    added = [t - d for t, d in zip(sorted(through), sorted(direct), strict=True)]
    print(f"calls: {n}")
    for name, values in (("direct to provider", direct), ("through the gateway", through),
                         ("added by the gateway", added)):  # fmt: skip
        p50, p99 = percentile(values, 50), percentile(values, 99)
        print(f"{name:>21}: p50 {p50:6.2f} ms  p99 {p99:6.2f} ms")
    print("targets for the added latency: p50 < 2 ms, p99 < 10 ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
