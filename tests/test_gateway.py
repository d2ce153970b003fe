"""The gateway speaks OpenAI Chat Completions: the openai SDK talks to it unmodified."""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from openai import DefaultHttpxClient, OpenAI

from harnesspro.execution.fakes.scripted import ScriptedPolicy
from harnesspro.execution.fakes.task_script import TaskScript
from harnesspro.execution.gateway.server import Gateway
from harnesspro.execution.gateway.upstream import ScriptedUpstream, common_prefix
from harnesspro.execution.rollout import FORWARDER
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.contract import Mount
from tests.conftest import SCRIPTED_PRICE

SCRIPT = TaskScript(
    instruction="Write hello to `/workspace/out.txt`.",
    workdir="/workspace",
    steps=("echo hello > /workspace/out.txt",),
    inputs=(),
    outputs=("/workspace/out.txt",),
)


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    with tempfile.TemporaryDirectory(prefix="hp-gw-") as tmp:
        upstream = ScriptedUpstream(ScriptedPolicy([SCRIPT]))
        gw = Gateway(Path(tmp) / "gw.sock", upstream, "scripted", SCRIPTED_PRICE)
        gw.register("tok-1", "seed-1")
        with gw:
            yield gw


def sdk_client(gw: Gateway, token: str = "tok-1") -> OpenAI:
    # The SDK's own HTTP client, pointed at the Unix socket (its `uds` transport option).
    transport = type(DefaultHttpxClient()._transport)(uds=str(gw.socket_path))
    return OpenAI(
        base_url="http://gateway/v1",
        api_key=token,
        http_client=DefaultHttpxClient(transport=transport),
        max_retries=0,
    )


def ask(client: OpenAI) -> str:
    reply = client.chat.completions.create(
        model="scripted",
        messages=[{"role": "user", "content": SCRIPT.instruction}],
        tools=[
            {"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}
        ],
    )
    return reply.choices[0].message.tool_calls[0].function.arguments  # type: ignore[index, union-attr]


def test_openai_sdk_round_trip_is_metered(gateway: Gateway) -> None:
    client = sdk_client(gateway)
    assert [m.id for m in client.models.list().data] == ["scripted"]
    json.loads(ask(client))
    second = client.chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": SCRIPT.instruction}]
    )
    assert second.usage is not None
    assert len(gateway.calls) == 2
    first = gateway.calls[0]
    assert first.status == 200 and first.usage.output > 0 and first.cost > 0
    # The gateway's record equals what the client was told.
    assert gateway.calls[1].usage.uncached_input + gateway.calls[1].usage.cached_input == (
        second.usage.prompt_tokens
    )


def test_unknown_token_is_refused(gateway: Gateway) -> None:
    with pytest.raises(Exception, match="401|unknown rollout token"):
        ask(sdk_client(gateway, token="stolen"))
    assert gateway.calls == []


def test_openai_sdk_inside_the_sandbox_through_the_forwarder(gateway: Gateway) -> None:
    program = (
        "from openai import OpenAI; import os; c = OpenAI(max_retries=0); "
        "r = c.chat.completions.create(model='scripted', messages=[{'role': 'user', "
        f"'content': {SCRIPT.instruction!r}}}]); print('usage', r.usage.prompt_tokens)"
    )
    mounts = [Mount(FORWARDER, "/opt/fw.py"), Mount(gateway.socket_path.parent, "/run/gw")]
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:8377/v1", "OPENAI_API_KEY": "tok-1"}
    argv = [
        sys.executable,
        "/opt/fw.py",
        "/run/gw/gw.sock",
        "8377",
        "--",
        sys.executable,
        "-c",
        program,
    ]
    result = Bubblewrap().run(argv, mounts, env, "/", 60)
    assert result.exit_code == 0, result.stderr
    assert (
        f"usage {gateway.calls[0].usage.uncached_input + gateway.calls[0].usage.cached_input}"
        in result.stdout
    )


def test_common_prefix_agrees_with_a_character_by_character_count() -> None:
    rng = random.Random(7)
    for _ in range(500):
        base = "".join(rng.choice('ab{}"') for _ in range(rng.randint(0, 60)))
        a = base + "".join(rng.choice("ab") for _ in range(rng.randint(0, 5)))
        b = base[: rng.randint(0, len(base))] + "".join(rng.choice("ab") for _ in range(3))
        assert common_prefix(a, b) == len(os.path.commonprefix([a, b])), (a, b)
