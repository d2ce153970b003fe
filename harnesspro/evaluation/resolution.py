"""The resolution band of a held-out split: how far apart two halves of the seed's own attempts
land when dealt at random, so a harness beats the seed only by more than that."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from harnesspro.core.ledger import rollout_frame
from harnesspro.core.records import RolloutRow
from harnesspro.core.uncertainty import FloatArray

# Pass rates are ratios of small integers: compare them with a tolerance.
TIE_TOLERANCE = 1e-9


MAX_DEALS = 1000  # C(2K, K) / 2 deals is 10 at K = 3; sample when K is large


@dataclass(frozen=True)
class Band:
    """How far two independent K-attempt scorings of the same harness (the seed) disagree."""

    whole_split: float
    """Median over the deals of |E(A) - E(B)|: differences within it are ties."""
    per_task: float
    """Median over tasks of |pass rate on attempts 0..K-1 - on K..2K-1|."""
    first_gap: float
    """|E(attempts 0..K-1) - E(attempts K..2K-1)|."""
    deals: int


UNKNOWN_BAND = Band(float("nan"), float("nan"), float("nan"), 0)


def attempt_matrix(rows: Iterable[RolloutRow], width: int) -> FloatArray:
    """Official verdicts as a (task, attempt) array over attempts 0..width-1; NaN = missing."""
    frame = rollout_frame(r for r in rows if r.attempt < width)
    table = frame.pivot_table("official_pass", "task_id", "attempt", aggfunc="mean")
    return table.reindex(columns=range(width)).to_numpy(dtype=np.float64)


def _row_means(m: FloatArray) -> FloatArray:
    """Per-row mean of the finite entries, NaN for a row without any (no warning)."""
    seen = np.isfinite(m).sum(axis=1)
    total = np.where(np.isfinite(m), m, 0.0).sum(axis=1)
    return np.divide(total, seen, out=np.full(len(m), np.nan), where=seen > 0)


def _deal_gaps(m: FloatArray, first: Sequence[int]) -> tuple[float, FloatArray]:
    """Whole-split gap and per-task gaps between the columns in `first` and the rest."""
    rest = [c for c in range(m.shape[1]) if c not in first]
    a, b = _row_means(m[:, list(first)]), _row_means(m[:, rest])
    both = np.isfinite(a) & np.isfinite(b)
    if not both.any():
        return float("nan"), np.zeros(0)
    return float(abs(a[both].mean() - b[both].mean())), np.abs(a[both] - b[both])


def resolution_band(matrix: FloatArray, k: int, seed: int = 0) -> Band:
    """The band from a (task, 2k attempts) matrix of one harness's verdicts."""
    deals = [d for d in itertools.combinations(range(2 * k), k) if 0 in d]  # halves: A/B = B/A
    if len(deals) > MAX_DEALS:
        rng = np.random.default_rng(seed)
        sample = rng.choice(np.arange(1, len(deals)), MAX_DEALS - 1, replace=False)
        deals = [deals[0], *(deals[i] for i in sorted(sample))]
    gaps = [_deal_gaps(matrix, d)[0] for d in deals]
    first_gap, per_task = _deal_gaps(matrix, deals[0])
    finite = [g for g in gaps if np.isfinite(g)]
    return Band(
        whole_split=float(np.median(finite)) if finite else float("nan"),
        per_task=float(np.median(per_task)) if per_task.size else float("nan"),
        first_gap=first_gap,
        deals=len(deals),
    )


def versus(e_plus: float, e_seed: float, band: float) -> str:
    """better / tie / worse than the seed; inside the band is a tie."""
    diff = e_plus - e_seed
    if not np.isfinite(band) or abs(diff) <= band + TIE_TOLERANCE:
        return "tie"
    return "better" if diff > 0 else "worse"


def versus_label(is_seed: bool, seed_known: bool, e_plus: float, e_seed: float, band: Band) -> str:
    """The harness's verdict against the seed: `unknown` when the seed is incomplete."""
    if is_seed:
        return "seed"
    return versus(e_plus, e_seed, band.whole_split) if seed_known else "unknown"
