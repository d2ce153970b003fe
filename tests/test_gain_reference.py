"""The default's proposals are judged against the run's fixed reference cost (twice the seed's,
as the selection measures every epoch's front), not against a wider one: a pick dearer than
the reference adds no hypervolume there, so it must not be proposed for it.

Hand-worked case, one task, two mechanisms, a near-certain posterior: the seed passes 50% at
cost 1; A passes 95% at cost 3; B passes 70% at cost 1; A+B about 97.8% at cost 3.
- Reference 2 (twice the seed's cost): A and A+B lie beyond it and add nothing; B adds
  (0.7 - 0.5) x (2 - 1) = 0.2, so B is the only pick.
- Reference 8 (what twice a dear screening row's cost of 4 gave before): after B, A adds
  (0.95 - 0.7) x (8 - 3) = 1.25 and A+B adds (0.978 - 0.7) x 5 = 1.39, so A+B is picked too.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from harnesspro.evolution.select_step import HV_REF_KEY
from harnesspro.evolution.strategies.proposals import propose
from harnesspro.evolution.strategies.state import search_state
from harnesspro.improvers.planner.surrogate import Gaussian, Surrogate, pair_index

POOL = np.array([[True, False], [False, True], [True, True]])
SEED = np.array([[False, False]])


def certain_surrogate() -> Surrogate:
    logit = np.log(np.array([0.95, 0.7]) / np.array([0.05, 0.3]))
    tiny = np.eye(4) * 1e-12
    pass_post = Gaussian(np.array([0.0, logit[0], logit[1], 0.0]), tiny)
    cost_post = Gaussian(np.array([0.0, np.log(3.0), 0.0, 0.0]), tiny)
    return Surrogate(pair_index(2), 1, pass_post, cost_post, 1e-9)


def picked(ref_cost: float) -> list[tuple[bool, ...]]:
    proposal = propose(certain_surrogate(), SEED, POOL, ref_cost, 1, np.random.default_rng(0))
    return [tuple(bool(b) for b in proposal.pool[p.index]) for p in proposal.picks]


def test_with_the_runs_reference_nothing_dearer_than_it_is_proposed() -> None:
    assert picked(2.0) == [(False, True)]


def test_a_wider_reference_would_propose_the_dear_genome() -> None:
    assert picked(8.0)[:2] == [(False, True), (True, True)]  # then A, tied with A+B's cost


def test_the_gain_of_each_pick_is_the_hand_worked_area() -> None:
    proposal = propose(certain_surrogate(), SEED, POOL, 8.0, 1, np.random.default_rng(0))
    gains = [p.gain for p in proposal.picks]
    # B's gain inside the cheap band [1, 1 + 0.5 / 3]; A+B's over the whole front
    assert gains[0] == pytest.approx(0.2 * 0.5 / 3, rel=1e-3)
    both = 1 / (1 + np.exp(-np.log(0.95 / 0.05) - np.log(0.7 / 0.3)))
    assert gains[1] == pytest.approx((both - 0.7) * 5, rel=1e-3)


def test_the_search_state_carries_the_reference_the_ledger_fixed() -> None:
    meta = {HV_REF_KEY: repr(0.0688)}
    config = SimpleNamespace(
        seed=3,
        harness=SimpleNamespace(seed=None),
        evaluation=SimpleNamespace(max_rollouts=None),
        evolution=SimpleNamespace(rollouts_per_task=2),
    )
    ledger = SimpleNamespace(meta=meta.get, rollouts=pd.DataFrame)
    ctx = SimpleNamespace(
        config=config, ledger=ledger, splits=SimpleNamespace(coreset=("a", "b")),
        candidates=dict, scores=dict, scoring_rollouts=pd.DataFrame,
    )  # fmt: skip
    assert search_state(ctx, 2).ref_cost == 0.0688  # type: ignore[arg-type]
    meta.clear()
    assert search_state(ctx, 0).ref_cost is None  # type: ignore[arg-type]
