"""What the surrogate is fit to: every scored coreset rollout of the candidates made of catalog
mechanisms (and of free-form changes, given their features), and the shrunk (posterior-mean)
point of each such candidate."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from harnesspro.core.metrics import judged, row_tokens
from harnesspro.core.records import Candidate, RolloutRow, Score
from harnesspro.improvers.planner.features import Features, genome_in
from harnesspro.improvers.planner.surrogate import Observations, Prior, Surrogate, fit

Genomes = dict[str, npt.NDArray[np.bool_]]
CATALOG_ONLY = Features()  # no free-form changes: catalog mechanisms only


def measured_genomes(
    candidates: Mapping[str, Candidate],
    scored_ids: Sequence[str],
    features: Features = CATALOG_ONLY,
) -> Genomes:
    """Scored candidates made of catalog mechanisms and the free-form changes of `features`
    only, by id, with their genome; merges and other changes are left out."""
    out = {}
    for cid in scored_ids:
        bits = genome_in(features, cid, candidates)
        if bits is not None:
            out[cid] = bits
    return out


def observations(
    rollouts: Iterable[RolloutRow], coreset: Sequence[str], genomes: Genomes, width: int
) -> Observations:
    """One row per scored coreset rollout of those candidates (log cost in dollars, else in
    tokens when any dollar figure is unknown; NaN where both are)."""
    rows = [r for r in judged(rollouts, coreset) if r.candidate_id in genomes]
    cost = np.array([math.nan if r.cost is None else r.cost for r in rows], dtype=float)
    if np.isnan(cost).any():
        cost = np.array([row_tokens(r) for r in rows], dtype=float)
    tasks = sorted(coreset)
    return Observations(
        np.array([genomes[r.candidate_id] for r in rows], dtype=bool).reshape(len(rows), width),
        np.array([tasks.index(r.task_id) for r in rows], dtype=np.int64),
        np.array([float(bool(r.passed)) for r in rows], dtype=float),
        np.log(np.clip(cost, 1e-12, None)),
        len(tasks),
    )


def surrogate_of(
    rollouts: Sequence[RolloutRow],
    coreset: Sequence[str],
    candidates: Mapping[str, Candidate],
    scores: Mapping[str, Score],
    features: Features = CATALOG_ONLY,
    prior: Prior | None = None,
) -> tuple[Surrogate, Genomes]:
    """The surrogate fit to every measured candidate `features` describes, and their genomes;
    its prior means are `prior`'s, else the features' own (the catalog's expectations)."""
    genomes = measured_genomes(candidates, sorted(scores), features)
    obs = observations(rollouts, coreset, genomes, len(features.names))
    return fit(obs, prior or features.prior()), genomes


def shrunk_points(
    rollouts: Sequence[RolloutRow],
    coreset: Sequence[str],
    candidates: Mapping[str, Candidate],
    scores: Mapping[str, Score],
    features: Features = CATALOG_ONLY,
) -> dict[str, tuple[float, float]]:
    """Posterior-mean (pass rate, cost per task) of each measured candidate: its raw
    mean pulled towards what the other candidates say about its levers (against the winner's
    curse of picking on 8-rollout means)."""
    model, genomes = surrogate_of(rollouts, coreset, candidates, scores, features)
    ids = list(genomes)
    if not ids:
        return {}
    pr, cost = model.mean(np.array([genomes[c] for c in ids], dtype=bool))
    return {c: (float(p), float(k)) for c, p, k in zip(ids, pr, cost, strict=True)}
