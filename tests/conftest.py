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


@pytest.fixture(scope="session")
def finished_run(tmp_path_factory: pytest.TempPathFactory, ray_session: None) -> Path:
    """A finished one-epoch tiny run with its held-out evaluation, shared by the end-to-end,
    report, dashboard and export tests (read-only for them)."""
    from harnesspro.cli import main

    folder = tmp_path_factory.mktemp("e2e")
    # Small validation and held-out evaluations keep this fast; test_evaluate.py checks them.
    evaluation = {"validation_tasks": 2, "validation_rollouts": 1, "attempts": 2}
    config = tiny_config(folder, evaluation=evaluation)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)  # the default run folder is relative: runs/<name>-<hash>
        assert main(["evolve", "--config", "tiny.yaml"]) == 0
    (run_dir,) = (folder / "runs").iterdir()
    assert run_dir.name.startswith("tiny-") and config.exists()
    return run_dir


@pytest.fixture
def scripted_model() -> ModelConfig:
    return ModelConfig()
