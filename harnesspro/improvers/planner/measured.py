"""What the surrogate is fit to: every scored coreset rollout of the candidates made of catalog
mechanisms, and the shrunk (posterior-mean) point of each such candidate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from harnesspro.core.metrics import row_tokens, scored
from harnesspro.core.records import Candidate, Score
from harnesspro.improvers.planner.catalog import lineage
from harnesspro.improvers.planner.space import GENES, catalog_prior, genome_of, parts
from harnesspro.improvers.planner.surrogate import Observations, Surrogate, fit

Genomes = dict[str, npt.NDArray[np.bool_]]


def measured_genomes(candidates: Mapping[str, Candidate], scored_ids: Sequence[str]) -> Genomes:
    """Scored candidates made of catalog mechanisms only, by id, with their genome (the
    mechanisms along their lineage); merges and free-form plans are left out."""
    out = {}
    for cid in scored_ids:
        names = set().union(*(parts(candidates[c].mechanism) for c in lineage(cid, candidates)))
        if names <= set(GENES):
            out[cid] = genome_of(names)
    return out


def observations(rollouts: pd.DataFrame, coreset: Sequence[str], genomes: Genomes) -> Observations:
    """One row per scored coreset rollout of those candidates (log cost in dollars, else in
    tokens when any dollar figure is unknown; NaN where both are)."""
    frame = scored(rollouts, coreset).dropna(subset=["pass"])
    frame = frame[frame["candidate_id"].isin(list(genomes))]
    cost = frame["cost"].astype(float)
    if cost.isna().any():
        cost = row_tokens(frame)
    tasks = sorted(coreset)
    return Observations(
        np.array([genomes[c] for c in frame["candidate_id"]], dtype=bool).reshape(-1, len(GENES)),
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
) -> tuple[Surrogate, Genomes]:
    """The surrogate fit to every measured catalog candidate, and their genomes."""
    genomes = measured_genomes(candidates, sorted(scores))
    return fit(observations(rollouts, coreset, genomes), catalog_prior()), genomes


def shrunk_points(
    rollouts: pd.DataFrame,
    coreset: Sequence[str],
    candidates: Mapping[str, Candidate],
    scores: Mapping[str, Score],
) -> dict[str, tuple[float, float]]:
    """Posterior-mean (pass rate, cost per task) of each measured catalog candidate: its raw
    mean pulled towards what the other candidates say about its levers (against the winner's
    curse of picking on 8-rollout means)."""
    model, genomes = surrogate_of(rollouts, coreset, candidates, scores)
    ids = list(genomes)
    if not ids:
        return {}
    pr, cost = model.mean(np.array([genomes[c] for c in ids], dtype=bool))
    return {c: (float(p), float(k)) for c, p, k in zip(ids, pr, cost, strict=True)}
