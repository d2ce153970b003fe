"""The additive fit over the catalog's bits, and the plan's drawn stacks."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from harnesspro.bench.additive_fit import additive_fit
from harnesspro.bench.calibration import Plan, Variant, load_plan
from harnesspro.core.config_base import ConfigError
from harnesspro.harness.mechanisms.catalog import CATALOG

BITS = [f"m{i}" for i in range(8)]
TASKS = [f"t{i}" for i in range(8)]


def _world(rule: Any, seed: int = 7) -> tuple[Plan, list[dict[str, Any]]]:
    """60 candidates with random bits over BITS, 8 tasks x 4 attempts, each rollout passing
    with probability rule(bits, task index)."""
    rng = random.Random(seed)
    variants, rows = [], []
    for c in range(60):
        bits = [b for b in BITS if rng.random() < 0.5]
        variants.append(Variant(name=f"draw-{c + 1:02d}", mechanisms=bits, kind="drawn"))
        for t, task in enumerate(TASKS):
            for attempt in range(4):
                passed = rng.random() < rule(bits, t)
                rows.append({"variant": f"draw-{c + 1:02d}", "task": task, "attempt": attempt,
                             "official_pass": passed})  # fmt: skip
    return Plan(suite="easy", tasks=TASKS, variants=variants), rows


def _logistic(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def test_an_additive_world_is_predicted_by_the_bits() -> None:
    effects = dict(zip(BITS, [2.0, -2.0, 1.5, -1.5, 1.0, 0.0, 0.0, -1.0], strict=True))
    plan, rows = _world(lambda bits, t: _logistic(sum(effects[b] for b in bits) + 0.3 * t - 1))
    fit = additive_fit(plan, rows)
    assert fit is not None and (fit.fitted, fit.scored, fit.rows) == (30, 30, 30 * 8 * 4)
    assert fit.gain > 0.1  # the bits carry most of the signal


def test_an_interaction_only_world_gains_nothing_from_the_bits() -> None:
    # Passing depends on whether m0 and m1 agree (XOR): no bit alone says anything.
    plan, rows = _world(lambda bits, t: 0.85 if ("m0" in bits) == ("m1" in bits) else 0.15)
    fit = additive_fit(plan, rows)
    assert fit is not None and fit.gain < 0.02


def test_without_draws_singles_predict_the_combinations() -> None:
    plan = Plan(suite="easy", tasks=["t"], variants=[
        Variant(name="a", mechanisms=["a"], kind="single"),
        Variant(name="b", mechanisms=["b"], kind="single"),
        Variant(name="a+b", mechanisms=["a", "b"], kind="pair"),
    ])  # fmt: skip
    rows = [{"variant": v, "task": "t", "official_pass": p}
            for v, p in [("a", True), ("a", False), ("b", False), ("a+b", True)]]  # fmt: skip
    fit = additive_fit(plan, rows)
    assert fit is not None and (fit.fitted, fit.scored, fit.rows) == (2, 1, 1)


def test_a_plan_draws_stacks_on_distinct_levers(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    draw = {"count": 40, "seed": 3, "smallest": 2, "largest": 5}
    path.write_text(yaml.safe_dump({"suite": "easy", "tasks": ["add_script"],
                                    "base": ["fenced_tools"], "draw": draw}))  # fmt: skip
    plan = load_plan(path)
    assert len(plan.variants) == 40 and load_plan(path) == plan  # the same draw every time
    base_lever = CATALOG["fenced_tools"].lever
    for v in plan.variants:
        levers = [CATALOG[m].lever for m in v.mechanisms]
        assert 2 <= len(levers) <= 5 and len(set(levers)) == len(levers)
        assert base_lever not in levers and v.kind == "drawn"
    assert len({tuple(v.mechanisms) for v in plan.variants}) > 30


def test_a_draw_smaller_than_its_smallest_is_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump({"suite": "easy", "tasks": ["t"],
                                    "draw": {"count": 2, "seed": 1, "smallest": 4,
                                             "largest": 2}}))  # fmt: skip
    with pytest.raises(ConfigError, match="smallest is above largest"):
        load_plan(path)
