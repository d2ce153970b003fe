"""The scripted upstream's latency model: a hosted model's waits, seeded per call."""

from __future__ import annotations

from typing import Any

import pytest

from harnesspro.core.config import load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.model_config import LatencyConfig
from harnesspro.execution.fakes.scripted import ScriptedPolicy
from harnesspro.execution.gateway.upstream import ScriptedUpstream
from tests.conftest import tiny_config

REQUEST: dict[str, Any] = {"model": "scripted", "messages": [{"role": "user", "content": "hi"}]}


def waits(latency: LatencyConfig, seed: str, request: dict[str, Any] = REQUEST) -> list[float]:
    slept: list[float] = []
    upstream = ScriptedUpstream(ScriptedPolicy([]), latency, sleep=slept.append)
    response = upstream.complete(request, seed)
    return [*slept, response["usage"]["completion_tokens"]]


def test_a_fixed_latency_is_first_token_plus_output_at_the_rate() -> None:
    wait, output = waits(LatencyConfig(first_token_s=(2.0, 2.0), tokens_per_s=(10.0, 10.0)), "s")
    assert output > 0
    assert wait == pytest.approx(2.0 + output / 10.0)


def test_drawn_latency_is_in_range_and_the_same_for_the_same_call() -> None:
    latency = LatencyConfig(first_token_s=(0.5, 1.5), tokens_per_s=(20.0, 80.0))
    draws = {seed: waits(latency, seed) for seed in ("a", "b", "c", "d")}
    for wait, output in draws.values():
        assert 0.5 + output / 80.0 <= wait <= 1.5 + output / 20.0
    assert waits(latency, "a") == draws["a"]  # seeded: a rerun waits as long
    assert len({wait for wait, _ in draws.values()}) == 4  # and calls differ from each other
    other = {**REQUEST, "messages": [{"role": "user", "content": "hello"}]}
    assert waits(latency, "a", other)[0] != draws["a"][0]


def test_no_latency_model_never_sleeps() -> None:
    slept: list[float] = []
    ScriptedUpstream(ScriptedPolicy([]), None, sleep=slept.append).complete(REQUEST, "s")
    assert slept == []


@pytest.mark.parametrize(
    ("model", "field"),
    [
        ({"latency": {"first_token_s": [2, 1]}}, "model.latency.first_token_s"),
        ({"latency": {"tokens_per_s": [0, 5]}}, "model.latency.tokens_per_s"),
        ({"upstream": "openai", "base_url": "http://x/v1", "latency": {}}, "model"),
    ],
)
def test_bad_latency_is_one_sentence(tmp_path: Any, model: dict[str, Any], field: str) -> None:
    path = tiny_config(tmp_path, model={"name": "scripted", **model})
    with pytest.raises(ConfigError, match=f"key '{field}'"):
        load_config(path)
