"""Under the default strategy, helpful changes found on sibling lineages are combined: the
surrogate credits each to its own mechanism and the expected-gain choice stacks them (the
role the composer's merge plays for `harnesspro-v1`)."""

from __future__ import annotations

import numpy as np

from harnesspro.improvers.planner.hvgain import choose, thirds
from harnesspro.improvers.planner.surrogate import Observations, fit, flat_prior

GENES = 6
HELP = {0: 1.4, 1: 1.2}  # two helpers (logit), each found by one sibling
TASKS = np.array([-1.0, -0.5, 0.0, 0.5])


def siblings(attempts: int = 6, seed: int = 5) -> Observations:
    """The seed and six siblings, each carrying one mechanism; only 0 and 1 help, no
    mechanism changes the cost."""
    rng = np.random.default_rng(seed)
    genomes = [np.zeros(GENES, dtype=bool)]
    for gene in range(GENES):
        bits = np.zeros(GENES, dtype=bool)
        bits[gene] = True
        genomes.append(bits)
    rows = [(g, t) for g in range(len(genomes)) for t in range(len(TASKS)) for _ in range(attempts)]
    g = np.array([genomes[i] for i, _ in rows])
    t = np.array([t for _, t in rows], dtype=np.int64)
    effect = np.array([HELP.get(i, 0.0) for i in range(GENES)])
    p = 1 / (1 + np.exp(-(TASKS[t] + g.astype(float) @ effect)))
    passed = (rng.random(len(rows)) < p).astype(float)
    log_cost = -4.0 + rng.normal(0, 0.05, len(rows))
    return Observations(g, t, passed, log_cost, len(TASKS))


def test_the_next_proposal_stacks_both_siblings_helpful_changes() -> None:
    obs = siblings()
    model = fit(obs, flat_prior(GENES))
    rng = np.random.default_rng(0)
    w_pass, w_cost = model.draws(rng, 64)
    known = np.unique(obs.genomes, axis=0)
    front_pass, front_cost = model.score(known, w_pass, w_cost)
    pool = np.array([[(i >> b) & 1 for b in range(GENES)] for i in range(2**GENES)], dtype=bool)
    pool_pass, pool_cost = model.score(pool, w_pass, w_cost)
    ref = (0.0, 2 * float(np.max(front_cost)))
    mean_cost = model.mean(known)[1]
    picks = choose(front_pass, front_cost, pool_pass, pool_cost, ref, thirds(mean_cost, ref[1]))
    best = max(picks, key=lambda p: p.gain)
    assert pool[best.index][0] and pool[best.index][1], pool[best.index]
