"""Shared fixtures: one embedded Ray per test session, tiny run configs."""

from __future__ import annotations

import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import ray
import yaml

from harnesspro.config import ModelConfig, Price
from harnesspro.gateway.openai_upstream import OpenAIUpstream
from harnesspro.gateway.retry import RetryPolicy
from harnesspro.gateway.server import Gateway

SCRIPTED_PRICE = Price(input=1.25, cached_input=0.125, output=10.0)
FAKE_PRICE = Price(input=2.0, cached_input=0.5, output=8.0)
FAST_RETRY = RetryPolicy(max_attempts=3, base_s=0.01, cap_s=1.0, budget_s=5.0)


@pytest.fixture(scope="session")
def ray_session() -> Iterator[None]:
    """An embedded Ray is ~4 s and ~0.8 GB to start: share one across the session."""
    from harnesspro.engine import ensure_ray

    ensure_ray(2)
    yield
    ray.shutdown()


def tiny_config(folder: Path, **sections: dict[str, object]) -> Path:
    """A small run config on the scripted policy (3 coreset tasks, G = 2, 1 epoch)."""
    data: dict[str, object] = {
        "name": "tiny",
        "model": {"name": "scripted", "upstream": "scripted"},
        "prices": {"scripted": SCRIPTED_PRICE.model_dump()},
        "coreset": {"size": 3},
        "evolution": {"epochs": 1, "rollouts_per_task": 2},
    }
    data.update(sections)
    path = folder / "tiny.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture
def scripted_model() -> ModelConfig:
    return ModelConfig()


def wait_for_file(path: Path, proc: subprocess.Popen[str], limit_s: float = 600.0) -> None:
    """Block until `path` exists, failing if `proc` ends first (a bound, not a timing check)."""
    deadline = time.monotonic() + limit_s
    while not path.exists():
        assert proc.poll() is None, f"process ended with {proc.returncode} before {path}"
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.1)


@contextmanager
def gateway_to(base_url: str, **kwargs: object) -> Iterator[Gateway]:
    """A gateway on a temporary socket, forwarding to `base_url` (a fake provider)."""
    with tempfile.TemporaryDirectory(prefix="hp-gw-") as tmp:
        upstream = OpenAIUpstream(base_url, "sk-provider-secret", timeout_s=1.0)
        options = {"retry": FAST_RETRY, **kwargs}
        gw = Gateway(Path(tmp) / "gw.sock", upstream, "fake-model", FAKE_PRICE, **options)  # type: ignore[arg-type]
        gw.register("rollout-token-abcdef", "seed")
        with gw:
            yield gw
