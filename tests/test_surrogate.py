"""The surrogate of lever effects recovers a planted additive landscape within its intervals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from harnesspro.improvers.planner.surrogate import (
    Observations,
    Prior,
    design,
    fit,
    flat_prior,
    pair_index,
)

PLANTED_PASS = np.array([1.2, -1.0, 0.0, 0.6, -0.4, 0.0])  # logit scale
PLANTED_COST = np.array([-0.5, 0.3, 0.0, 0.2, -0.2, 0.0])  # log scale
TASKS = np.array([-0.5, 0.0, 0.8, 0.3])


def planted(seed: int = 3, genomes: int = 48, attempts: int = 8) -> Observations:
    """Random half-on genomes, every one run `attempts` times on every task; pass and log cost
    drawn from the additive model (no interactions) with known coefficients."""
    rng = np.random.default_rng(seed)
    g = rng.random((genomes, len(PLANTED_PASS))) < 0.5
    rows = [(i, t) for i in range(genomes) for t in range(len(TASKS)) for _ in range(attempts)]
    gi = np.array([i for i, _ in rows])
    ti = np.array([t for _, t in rows])
    x = g[gi].astype(float)
    p = 1 / (1 + np.exp(-(TASKS[ti] + x @ PLANTED_PASS)))
    passed = (rng.random(len(rows)) < p).astype(float)
    log_cost = -3.0 + 0.2 * ti + x @ PLANTED_COST + rng.normal(0, 0.2, len(rows))
    return Observations(g[gi], ti.astype(np.int64), passed, log_cost, len(TASKS))


def test_planted_main_effects_lie_within_their_intervals() -> None:
    model = fit(planted(), flat_prior(len(PLANTED_PASS)))
    for which, truth in (("pass", PLANTED_PASS), ("cost", PLANTED_COST)):
        post = model.main_effects(which)
        low, high = post.mean - 2.58 * post.sd(), post.mean + 2.58 * post.sd()  # 99%
        assert np.all((low <= truth) & (truth <= high)), (which, post.mean, post.sd())
        # informative, not vacuous: every interval far narrower than the effects' spread
        assert np.all(post.sd() < 0.35), (which, post.sd())
    # the signs of the non-zero effects are identified
    pass_mean = model.main_effects("pass").mean
    assert np.all(np.sign(pass_mean[PLANTED_PASS != 0]) == np.sign(PLANTED_PASS[PLANTED_PASS != 0]))


def test_planted_interactions_are_shrunk_towards_zero() -> None:
    model = fit(planted(), flat_prior(len(PLANTED_PASS)))
    t, m = model.n_tasks, model.n_mech
    pairs = model.pass_post.mean[t + m :]
    sd = model.pass_post.sd()[t + m :]
    assert np.all(np.abs(pairs) < 2.58 * sd)


def test_predicted_pass_rate_matches_the_planted_one() -> None:
    model = fit(planted(), flat_prior(len(PLANTED_PASS)))
    genome = np.array([[True, False, False, True, False, False]])
    truth = float(np.mean(1 / (1 + np.exp(-(TASKS + PLANTED_PASS @ genome[0])))))
    draws, _ = model.predict(genome, np.random.default_rng(0), 400)
    low, high = np.percentile(draws[:, 0], [0.5, 99.5])
    assert low <= truth <= high
    pr, cost = model.mean(genome)
    assert abs(pr[0] - truth) < 0.08
    true_cost = float(np.mean(np.exp(-3.0 + 0.2 * np.arange(4) + PLANTED_COST @ genome[0] + 0.02)))
    assert abs(cost[0] / true_cost - 1) < 0.1


def test_the_fit_reaches_the_mode_where_a_full_newton_step_overshoots() -> None:
    """Recorded from a tiny llm-mode run whose fit diverged with full Newton steps (task
    intercepts past 300): at the returned mean the log posterior's gradient is 0."""
    data = json.loads((Path(__file__).parent / "data" / "newton_overshoot.json").read_text())
    genomes = np.array([[c == "1" for c in row] for row in data["genomes"]])
    m, t = genomes.shape[1], data["n_tasks"]
    tasks = np.array(data["tasks"], dtype=np.int64)
    passed = np.array(data["passed"], dtype=float)
    obs = Observations(genomes, tasks, passed, np.zeros(len(tasks)), t)
    prior = Prior(np.array(data["pass_mean"]), np.zeros(m))
    model = fit(obs, prior)
    pairs = pair_index(m)
    x = np.hstack([np.eye(t)[tasks], design(genomes, pairs)])
    w = model.pass_post.mean
    # the prior as fit() sets it: task intercepts at the smoothed logit of each task's rate
    ones = np.array([passed[tasks == i].sum() for i in range(t)])
    runs = np.array([(tasks == i).sum() for i in range(t)])
    mu0 = np.concatenate([np.log((ones + 1) / (runs - ones + 1)), prior.pass_mean,
                          np.zeros(len(pairs))])  # fmt: skip
    prec0 = np.concatenate([np.full(t, prior.task_sd**-2), np.full(m, prior.main_sd**-2),
                            np.full(len(pairs), prior.pair_sd**-2)])  # fmt: skip
    p = 1 / (1 + np.exp(-(x @ w)))
    gradient = x.T @ (passed - p) - prec0 * (w - mu0)
    assert np.max(np.abs(gradient)) < 1e-6
    assert np.max(np.abs(w[:t])) < 10  # the task intercepts stay on the scale of the data
