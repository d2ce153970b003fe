"""What the surrogate is fit to: every scored coreset rollout of the candidates made of catalog
mechanisms (and of free-form changes, given their features), and the shrunk (posterior-mean)
point of each such candidate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from harnesspro.core.metrics import row_tokens, scored
from harnesspro.core.records import Candidate, Score
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
    rollouts: pd.DataFrame, coreset: Sequence[str], genomes: Genomes, width: int
) -> Observations:
    """One row per scored coreset rollout of those candidates (log cost in dollars, else in
    tokens when any dollar figure is unknown; NaN where both are)."""
    frame = scored(rollouts, coreset).dropna(subset=["pass"])
    frame = frame[frame["candidate_id"].isin(list(genomes))]
    cost = frame["cost"].astype(float)
    if cost.isna().any():
        cost = row_tokens(frame)
    tasks = sorted(coreset)
    return Observations(
        np.array([genomes[c] for c in frame["candidate_id"]], dtype=bool).reshape(-1, width),
        np.array([tasks.index(t) for t in frame["task_id"]], dtype=np.int64),
        frame["pass"].to_numpy(float),
        np.log(np.clip(cost.to_numpy(float), 1e-12, None)),
        len(tasks),
    )


def surrogate_of(
    rollouts: pd.DataFrame,
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
    rollouts: pd.DataFrame,
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
