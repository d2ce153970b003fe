"""Greedy stacks for the yardstick, against hand-worked orders."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from harnesspro.bench import runner
from harnesspro.bench.greedy import orders, stacks
from harnesspro.core.config import RunConfig
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.run.context import RunContext
from tests.conftest import SCRIPTED_PRICE

SEED = (0.50, 0.010)
STEP = 1 / 42  # 14 tasks x K = 3
SINGLES = {
    "a": (0.60, 0.012),  # +0.10 pass, dearer
    "b": (0.55, 0.009),  # +0.05 pass, cheaper
    "c": (0.50 - 1 / 42, 0.006),  # one rollout worse, 40% cheaper: still a cost move
    "d": (0.45, 0.004),  # cheapest, but three rollouts worse: not a cost move
    "e": (0.55, 0.011),  # +0.05 pass like b, dearer: after b
    "f": (0.50, 0.010),  # no change: in neither order
}


def test_orders_by_measured_single_effects() -> None:
    found = orders(SINGLES, SEED, STEP)
    assert found["pass"] == ["a", "b", "e"]
    assert found["cost"] == ["c", "b"]  # cut 0.004, then 0.001


def test_stacks_are_prefixes_of_two_or_more_skipping_exclusive_ones() -> None:
    assert stacks(["a", "b", "e"], []) == [("a", "b"), ("a", "b", "e")]
    assert stacks(["hi", "x", "lo", "y"], [("hi", "lo")]) == [("hi", "x"), ("hi", "x", "y")]
    assert stacks(["a"], []) == []


@pytest.mark.slow
def test_the_exhaustive_points_add_the_greedy_stacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = RunConfig.model_validate(
        {
            "name": "greedy",
            "model": {"name": "scripted", "upstream": "scripted"},
            "prices": {"scripted": SCRIPTED_PRICE.model_dump()},
            "tasks": {"suite": "builtin", "test_fraction": 0.05},
            "coreset": {"size": 2},
            "evaluation": {"validation_rollouts": 0, "attempts": 1},
        }
    )
    measured = {  # the test split's figures, planted: two helpers and two cost cutters
        "seed": (0.5, 0.010),
        "verify_before_submit": (0.6, 0.012),
        "ground_check": (0.55, 0.011),
        "concise_prompt": (0.5, 0.007),
        "skim_inputs": (0.5, 0.008),
    }
    rounds: list[set[str]] = []

    def planted(ctx: RunContext, k: int) -> dict[str, tuple[float, float]]:
        names = {c.mechanism or "seed" for c in ctx.candidates().values()}
        rounds.append(names)
        return {n: measured.get(n, (0.5, 0.010)) for n in names}

    monkeypatch.setattr(runner, "_test_points", planted)
    points = runner.exhaustive_points(base, 1, tmp_path, Console(file=io.StringIO()))
    assert len(rounds[0]) == len(CATALOG) + 1  # the seed and every single
    stacked = rounds[1] - rounds[0]
    assert stacked == {"verify_before_submit+ground_check", "concise_prompt+skim_inputs"}
    assert stacked <= set(points)
