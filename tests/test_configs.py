"""Every shipped config validates (the keys the README documents really exist)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harnesspro.core.config import load_config

CONFIGS = sorted((Path(__file__).parents[1] / "configs").glob("*.yaml"))


def test_there_are_configs() -> None:
    assert {p.name for p in CONFIGS} >= {"quickstart.yaml", "openai.yaml", "llama-cpp.yaml"}


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_config_validates(path: Path) -> None:
    config = load_config(path)
    assert config.evolution.rollouts_per_task >= 1
