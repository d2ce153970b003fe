"""Operating points chosen for the front they make (`selection.rule: front`): against a
hand-worked case and against every subset scored by pymoo's hypervolume."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pydantic import ValidationError

from harnesspro.bench.runner import variant_config, variants
from harnesspro.core.config import RunConfig
from harnesspro.core.pareto import front_modes, hypervolume, select_modes
from harnesspro.core.records import Score
from harnesspro.evaluation.selection.select import SelectionInput, select

MODES = {"lite": (0.2, 0.8), "medium": (0.5, 0.5), "heavy": (0.8, 0.2)}


def test_a_hand_worked_front() -> None:
    # reference cost 4. D (0.5, 0.5) alone: 0.5 x 3.5 = 1.75; A (0.6, 1.0): 1.8;
    # B (0.9, 1.5): 2.25; C (0.95, 3.0): 0.95.
    # Best three: {D, A, B}: D 1.75 + A (0.6-0.5) x 3 = 0.3 + B (0.9-0.6) x 2.5 = 0.75 -> 2.80;
    # {A, B, C}: 1.8 + 0.75 + 0.05 x 1 = 2.60; {D, B, C}: 1.75 + 0.4 x 2.5 + 0.05 = 2.80 ->
    # a tie with {D, A, B}, broken by the earliest indices: D=3, A=0, B=1 -> {0, 1, 3}.
    pr, cost = [0.6, 0.9, 0.95, 0.5], [1.0, 1.5, 3.0, 0.5]
    picks = front_modes(pr, cost, MODES, ref_cost=4.0)
    assert picks == {"lite": 3, "medium": 0, "heavy": 1}
    assert hypervolume([0.5, 0.6, 0.9], [0.5, 1.0, 1.5], 4.0) == pytest.approx(2.80)
    assert hypervolume([0.5, 0.9, 0.95], [0.5, 1.5, 3.0], 4.0) == pytest.approx(2.80)
    # J_m picks A, B, C (2.60): lite A, at 0.2 x (0.35 / 0.45)^2 + 0.8 x (0.5 / 2.5)^2 = 0.153,
    # beats D at 0.2 x 1^2 = 0.2; medium B (0.086); heavy C, the strongest
    assert select_modes(pr, cost, MODES) == {"lite": 0, "medium": 1, "heavy": 2}


def test_the_chosen_points_make_the_largest_front_of_every_subset() -> None:
    rng = np.random.default_rng(11)
    for _ in range(60):
        n = int(rng.integers(1, 8))
        pr, cost = rng.integers(0, 9, n) / 8, rng.uniform(0.1, 3.0, n).round(2)
        ref, k = 2.5, int(rng.integers(1, 4))
        picks = front_modes(pr, cost, MODES, ref_cost=ref, max_distinct=k)
        chosen = sorted(set(picks.values()))
        assert len(chosen) == min(k, n)
        best = max(
            hypervolume(pr[list(c)], cost[list(c)], ref)
            for c in itertools.combinations(range(n), min(k, n))
        )
        assert hypervolume(pr[chosen], cost[chosen], ref) == pytest.approx(best)
        # the modes take the points in order of cost, the lowest alpha the cheapest
        assert cost[picks["lite"]] <= cost[picks["medium"]] <= cost[picks["heavy"]]


def test_fewer_points_than_modes_give_the_extra_modes_the_dearest() -> None:
    assert front_modes([0.5, 0.9], [1.0, 2.0], MODES, ref_cost=4.0) == {
        "lite": 0, "medium": 1, "heavy": 1,
    }  # fmt: skip


def score(candidate: str, pass_rate: float, cost: float) -> Score:
    return Score(candidate, pass_rate, cost, tokens_per_task=1000.0, n_rollouts=8)


def test_select_with_rule_front_uses_the_runs_reference_point() -> None:
    points = {"c000": (0.5, 1.0), "c001": (0.6, 1.0), "c002": (0.9, 1.5), "c003": (0.95, 3.8),
              "c004": (0.55, 0.5)}  # fmt: skip
    scores = {cid: score(cid, *point) for cid, point in points.items()}
    base = SelectionInput(epoch=1, scores=scores, modes=MODES, max_survivors=3, ref_cost=4.0)
    front = select(SelectionInput(**{**base.__dict__, "rule": "front"}))
    weights = select(base)
    # reference 4 (the seed is dominated by c001): {c004, c001, c002}: 0.55 x 3.5 + 0.05 x 3
    # + 0.3 x 2.5 = 2.825; {c004, c002, c003}: 1.925 + 0.35 x 2.5 + 0.05 x 0.2 = 2.81;
    # {c004, c001, c003}: 1.925 + 0.15 + 0.35 x 0.2 = 2.145; {c001, c002, c003}: 1.8 + 0.75
    # + 0.01 = 2.56
    assert front.selected.picks == {"lite": "c004", "medium": "c001", "heavy": "c002"}
    assert weights.selected.picks["heavy"] == "c003"


def test_rho_refuses_rule_front_and_the_bench_variant_sets_it() -> None:
    with pytest.raises(ValidationError, match="ignores selection.rule"):
        RunConfig.model_validate({"evolution": {"strategy": "rho"}, "selection": {"rule": "front"}})
    chosen = variants(["harnesspro", "rho"], racing=False, front=True)
    assert [v.label for v in chosen] == ["harnesspro", "rho", "harnesspro+front"]
    configs = {v.label: variant_config(RunConfig(), v, 3, __import__("pathlib").Path("/tmp/c"))
               for v in chosen}  # fmt: skip
    assert [label for label, c in configs.items() if c.selection.rule == "front"] == [
        "harnesspro+front"
    ]
