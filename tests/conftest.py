"""Shared fixtures: one embedded Ray per test session, tiny run configs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
import yaml

from harnesspro.config import ModelConfig, Price

SCRIPTED_PRICE = Price(input=1.25, cached_input=0.125, output=10.0)


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


def shared_dataset(name: str) -> Path:
    """A dataset of external tasks under `shared/datasets/` beside the checkout (in any parent
    folder, so git worktrees find it too), or under `$HARNESSPRO_DATASETS`. May not exist:
    tests using it skip then."""
    import os

    configured = os.environ.get("HARNESSPRO_DATASETS")
    if configured:
        return Path(configured) / name
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "shared" / "datasets" / name
        if candidate.is_dir():
            return candidate
    return here.parents[2] / "shared" / "datasets" / name
