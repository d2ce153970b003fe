"""Shared fixtures: one embedded Ray per test session, tiny run configs."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import ray
import yaml

from harnesspro.config import ModelConfig, Price

SCRIPTED_PRICE = Price(input=1.25, cached_input=0.125, output=10.0)


@pytest.fixture(scope="session")
def ray_session() -> Iterator[None]:
    """An embedded Ray is ~4 s and ~0.8 GB to start: share one across the session."""
    from harnesspro.config import RayConfig
    from harnesspro.engine import ensure_ray

    ensure_ray(RayConfig(num_cpus=2))
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


@pytest.fixture
def ray_cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., object]]:
    """A factory of local multi-node Ray clusters (`ray.cluster_utils.Cluster`, head first).

    Each lives in its own temp dir (RAY_TMPDIR), so the address file it writes is never found
    by another program's `ray.init()`, and it is torn down after the test, failed or not. The
    session's embedded Ray is shut down first; later tests start a new one when they need it.
    """
    from ray.cluster_utils import Cluster

    ray.shutdown()
    clusters: list[Cluster] = []
    # short: Ray's socket paths under it must fit in 107 characters
    temp = tempfile.mkdtemp(prefix="hp-ray-", dir="/tmp")
    monkeypatch.setenv("RAY_TMPDIR", temp)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)

    def make(*node_cpus: float) -> Cluster:
        head = {"num_cpus": node_cpus[0], "include_dashboard": False}
        cluster = Cluster(initialize_head=True, head_node_args=head)
        clusters.append(cluster)
        for cpus in node_cpus[1:]:
            cluster.add_node(num_cpus=cpus)
        return cluster

    try:
        yield make
    finally:
        ray.shutdown()
        for cluster in clusters:
            cluster.shutdown()
        shutil.rmtree(temp, ignore_errors=True)
