"""Size caps at the gateway: an oversized request is refused from its header and never held,
an oversized answer ends in an error, and chat.jsonl stops growing at its cap."""

from __future__ import annotations

import json
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harnesspro.execution.fakes.scripted import ScriptedPolicy
from harnesspro.execution.fakes.task_script import TaskScript
from harnesspro.execution.gateway.chatlog import ChatLog, conversation
from harnesspro.execution.gateway.limits import GatewayLimits
from harnesspro.execution.gateway.server import Gateway
from harnesspro.execution.gateway.upstream import ScriptedUpstream
from harnesspro.execution.rollout import run_rollout
from tests.conftest import SCRIPTED_PRICE, inputs_for_harness

MB = 1_000_000
SCRIPT = TaskScript(
    instruction="Write hello to `/workspace/out.txt`.",
    workdir="/workspace",
    steps=("echo hello > /workspace/out.txt",),
    inputs=(),
    outputs=("/workspace/out.txt",),
)
ASK = {"model": "scripted", "messages": [{"role": "user", "content": SCRIPT.instruction}]}


def gateway_with(tmp: str, limits: GatewayLimits) -> Gateway:
    upstream = ScriptedUpstream(ScriptedPolicy([SCRIPT]))
    gw = Gateway(Path(tmp) / "gw.sock", upstream, "scripted", SCRIPTED_PRICE, limits=limits)
    gw.register("tok-1", "seed-1")
    return gw


@pytest.fixture
def small() -> Iterator[Gateway]:
    limits = GatewayLimits(request_max=MB, response_max=200, drain_s=5)
    with tempfile.TemporaryDirectory(prefix="hp-gw-") as tmp, gateway_with(tmp, limits) as gw:
        yield gw


def headers(length: int) -> bytes:
    return (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer tok-1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def answer(conn: socket.socket) -> tuple[int, dict[str, object]]:
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def connect(gw: Gateway) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(20)
    conn.connect(str(gw.socket_path))
    return conn


def test_a_100_mb_request_is_refused_before_its_body_is_read(small: Gateway) -> None:
    with connect(small) as conn:
        conn.sendall(headers(100 * MB))  # and no body at all: refused from the header alone
        conn.shutdown(socket.SHUT_WR)
        status, body = answer(conn)
    assert status == 413
    message = body["error"]["message"]  # type: ignore[index]
    assert message == (
        "the request body is 100,000,000 bytes, over the gateway's cap of 1,000,000 bytes; "
        "send a shorter request."
    )
    assert [call.status for call in small.calls] == [413] and small.chat_log.lines == []


def test_a_sent_100_mb_body_is_dropped_and_the_client_still_hears_why(small: Gateway) -> None:
    started = time.monotonic()
    with connect(small) as conn:
        conn.sendall(headers(100 * MB))
        chunk = b" " * MB
        for _ in range(100):  # what an HTTP client does: the whole body, then the answer
            conn.sendall(chunk)
        status, body = answer(conn)
    assert status == 413 and "over the gateway's cap" in json.dumps(body)
    assert time.monotonic() - started < 30
    # The next call is served as usual.
    with connect(small) as conn:
        data = json.dumps({**ASK, "max_tokens": 5}).encode()
        conn.sendall(headers(len(data)).replace(b"HTTP/1.1", b"HTTP/1.0") + data)
        status, body = answer(conn)
    assert status == 413  # this answer is over the 200-byte cap of the fixture
    assert "the model's answer is" in body["error"]["message"]  # type: ignore[index]
    assert small.calls[-1].usage is not None and small.calls[-1].usage.output > 0  # billed


def test_a_streamed_answer_past_the_cap_ends_in_an_error(small: Gateway) -> None:
    data = json.dumps({**ASK, "stream": True}).encode()
    with connect(small) as conn:
        conn.sendall(headers(len(data)) + data)
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    assert b"response_too_large" in reply and b"over the gateway's cap of 200 bytes" in reply
    assert small.calls[-1].status == 413 and small.chat_log.lines == []


def test_malformed_content_length_is_one_sentence(small: Gateway) -> None:
    with connect(small) as conn:
        conn.sendall(headers(5).replace(b"Content-Length: 5", b"Content-Length: -5"))
        status, body = answer(conn)
    assert status == 400 and body["error"]["message"] == "Content-Length is not a byte count"  # type: ignore[index]


def test_chat_log_stops_at_its_cap_and_still_reads() -> None:
    log = ChatLog(max_bytes=1000)
    history: list[dict[str, str]] = []
    for i in range(20):
        history.append({"role": "user", "content": f"question {i} " + "x" * 100})
        log.add("tok", {"messages": list(history)}, {"role": "assistant", "content": f"a{i}"})
        history.append({"role": "assistant", "content": f"a{i}"})
    text = "\n".join(log.lines)
    assert len(text) <= 1000 + 200  # the cap, plus the one line saying so
    assert "later calls are left out" in log.lines[-1]
    kept = conversation(text)
    assert 1 < kept.calls < 20
    assert kept.messages == tuple(history[: 2 * kept.calls])


HUGE = """
import http.client, json, os, urllib.parse
url = urllib.parse.urlparse(os.environ["OPENAI_BASE_URL"])
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 100_000_000}]})
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
conn.request("POST", url.path + "/chat/completions", body,
             {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
reply = conn.getresponse()
error = json.loads(reply.read())["error"]["message"]
out = os.environ["HARNESSPRO_OUT"]
with open(out + "/trajectory.jsonl", "w") as f:
    f.write(json.dumps({"type": "error", "message": f"HTTP {reply.status}: {error}"}) + "\\n")
open(out + "/result.json", "w").write('{"status": "model_error"}')
"""


def test_a_rollout_sending_100_mb_is_refused_within_its_time_limit(tmp_path: Path) -> None:
    harness = tmp_path / "h"
    harness.mkdir()
    (harness / "harness.toml").write_text('[harness]\ncommand = ["{python}", "/harness/huge.py"]\n')
    (harness / "huge.py").write_text(HUGE)
    result = run_rollout(inputs_for_harness(harness, timeout_s=45))
    assert result.status == "ok", result.reason + result.detail
    assert result.latency_s < 45
    assert "HTTP 413: the request body is 100,0" in result.trajectory
    assert "over the gateway's cap of 16,000,000 bytes" in result.trajectory
    assert result.chat_log == "" and '"status": 413' in result.gateway_log
