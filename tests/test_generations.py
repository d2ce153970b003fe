"""A baseline's generation under a rollout cap: checked against a search over sizes."""

from __future__ import annotations

import random

import pytest

from harnesspro.evolution.strategies import random_edits
from harnesspro.evolution.strategies.generations import generation_size
from harnesspro.improvers.inputs import ImproverInputs


def by_search(uncapped: int, paid: int) -> int:
    """The smallest size of at least 3 whose first generation (the seed among them) and two
    more of that size spend `paid` candidates; `uncapped` when none up to it does."""
    for size in range(3, uncapped + 1):
        if (size - 1) + size + size >= paid:
            return size
    return uncapped


def test_a_capped_generation_is_sized_for_three_generations() -> None:
    for uncapped in (3, 9, 12):
        for paid in range(0, 80):
            assert generation_size(uncapped, paid) == by_search(uncapped, paid), (uncapped, paid)


def test_uncapped_the_generation_keeps_its_size() -> None:
    assert generation_size(9, None) == 9


def test_the_bench_budget_gives_nsga2_three_generations() -> None:
    # configs/bench.yaml: 80 rollouts, 4 coreset tasks x G=2 = 8 a candidate, so 9 beside the
    # seed: a first generation of 3 random genomes, then 4 offspring, then 2 before the cap
    assert generation_size(9, 80 // 8 - 1) == 4


def test_random_plans_one_generation_a_parent_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        random_edits, "untried", lambda inputs, parent: [f"m{i}" for i in range(20)]
    )
    inputs = ImproverInputs(1, ("c000", "c001", "c002"), (), {}, {}, {}, {}, ())
    assert len(random_edits.random_plans(inputs, {}, random.Random(0))) == 9  # 3 a parent
    assert len(random_edits.random_plans(inputs, {}, random.Random(0), paid=9)) == 4
