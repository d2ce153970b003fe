"""Strategies, racing and the no-synth judge, on cases worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from harnesspro.core.config import load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.evaluation.racing import dominated_whp
from harnesspro.evaluation.selection.select import best_pass
from harnesspro.evolution.strategies import STRATEGIES, make_strategy


def beta_2_4_cdf(x: float) -> float:
    """Beta(2, 4) CDF = P(Binomial(5, x) >= 2)."""
    return 1 - (1 - x) ** 5 - 5 * x * (1 - x) ** 4


def test_racing_bounds_by_hand() -> None:
    lo, hi = 0.0, 1.0
    for _ in range(60):  # bisection for the 90% quantile of Beta(1 + 1 pass, 1 + 3 fails)
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if beta_2_4_cdf(mid) < 0.9 else (lo, mid)
    upper = lo
    assert 0.58 < upper < 0.59
    passes, costs = [1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]
    assert dominated_whp(passes, costs, [(upper + 0.01, 0.9)])
    assert not dominated_whp(passes, costs, [(upper - 0.01, 0.9)])  # might still pass more
    assert not dominated_whp(passes, costs, [(upper + 0.01, 1.1)])  # might still be cheaper
    assert not dominated_whp(passes, [1.0, float("nan"), 1.0, 1.0], [(1.0, 0.0)])


def test_single_objective_selection_ignores_cost() -> None:
    choice = best_pass({"c000": (0.5, 1.0), "c001": (0.8, 9.0), "c002": (0.8, 0.1)}, ["lite"])
    assert choice.picks == {"lite": "c001"}  # the incumbent keeps a tie, however dear


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_every_registered_strategy_imports(name: str) -> None:
    assert callable(make_strategy(name).propose)


@pytest.mark.parametrize(
    ("overrides", "names"),
    [
        (["evolution.racing=true", "evolution.rollouts_per_task=1"], "racing"),
        (["evolution.improver=llm", "evolution.strategy=random"], "improver 'llm'"),
        (["evolution.bundle=3", "evolution.strategy=nsga2"], "ignores bundle"),
        (
            ["evolution.judge_trajectory=false", "evolution.strategy=no-synth"],
            "ignores judge_trajectory",
        ),
        (["evolution.exploration=true", "evolution.strategy=random"], "exploration"),
        (["evolution.exploration=true", "evolution.improver=llm"], "exploration"),
        (["evolution.disjoint_plans=true", "evolution.strategy=nsga2"], "disjoint_plans"),
        (["evolution.disjoint_plans=true", "evolution.improver=llm"], "disjoint_plans"),
        (["evolution.disjoint_plans=false", "evolution.strategy=rho"], "disjoint_plans"),
    ],
)
def test_switches_that_would_not_act_are_refused(
    tmp_path: Path, overrides: list[str], names: str
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("name: x\n")
    with pytest.raises(ConfigError, match=names):
        load_config(config, overrides)
