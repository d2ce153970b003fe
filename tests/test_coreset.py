"""Tests for the DPP coreset (greedy MAP inference with incremental Cholesky)."""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt
import pytest

from harnesspro.tasks.coreset import (
    JITTER,
    dpp_kernel,
    greedy_map,
    select_coreset,
    similarity_kernel,
)

try:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    HAVE_HYPOTHESIS = True
except ImportError:  # pragma: no cover - exercised only without the dev extra
    HAVE_HYPOTHESIS = False


def brute_force_greedy(L: npt.NDArray[np.float64], k: int) -> list[int]:
    """Return the greedy order that maximises log det(L[S + i, S + i]) at every step."""
    chosen: list[int] = []
    for _ in range(min(k, L.shape[0])):
        best, best_logdet = -1, -np.inf
        for i in range(L.shape[0]):
            if i in chosen:
                continue
            idx = [*chosen, i]
            sign, logdet = np.linalg.slogdet(L[np.ix_(idx, idx)])
            if sign > 0 and logdet > best_logdet:
                best, best_logdet = i, logdet
        chosen.append(best)
    return chosen


def random_psd(seed: int) -> npt.NDArray[np.float64]:
    """Return a random full-rank PSD kernel of random size 1..10."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 11))
    a = rng.standard_normal((n, n + 2))
    return a @ a.T


def check_matches_brute_force(seed: int) -> None:
    """Assert greedy_map agrees with the brute-force greedy for every k on one kernel."""
    L = random_psd(seed)
    for k in range(L.shape[0] + 1):
        assert greedy_map(L, k) == brute_force_greedy(L, k), (seed, k)


if HAVE_HYPOTHESIS:

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(st.integers(min_value=0, max_value=2**32 - 1))
    def test_greedy_map_matches_brute_force(seed: int) -> None:
        check_matches_brute_force(seed)

else:  # pragma: no cover - fallback when hypothesis is missing

    @pytest.mark.parametrize("seed", range(50))
    def test_greedy_map_matches_brute_force(seed: int) -> None:
        check_matches_brute_force(seed)


def test_greedy_map_matches_brute_force_on_dpp_kernels() -> None:
    # Kernels built like the real ones: unit-diagonal similarity, jitter, varied quality.
    for seed in range(20):
        rng = np.random.default_rng(seed)
        x = rng.random((8, 5))
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        L = dpp_kernel(x @ x.T, list(rng.uniform(0.5, 2.0, 8)))
        assert greedy_map(L, 8) == brute_force_greedy(L, 8)


DUPLICATE = "Parse the CSV file and report the median of the price column."
OTHER = "Fix the failing unit test in the HTTP retry logic of the client."
UNRELATED = "Write a haiku about autumn leaves falling in the garden."


@pytest.mark.parametrize(
    "texts", sorted(set(itertools.permutations([DUPLICATE, DUPLICATE, OTHER])))
)
def test_coreset_never_picks_both_duplicates(texts: tuple[str, ...]) -> None:
    dup = [i for i, t in enumerate(texts) if t == DUPLICATE]
    chosen = select_coreset(list(texts), 2)
    assert len(chosen) == 2
    assert not set(dup) <= set(chosen)


def test_duplicates_are_similarity_one_and_kernel_stays_positive_definite() -> None:
    sim = similarity_kernel([DUPLICATE, DUPLICATE, OTHER])
    assert sim[0, 1] == pytest.approx(1.0)
    L = dpp_kernel(sim)
    assert np.linalg.eigvalsh(L).min() >= JITTER / 2
    # After picking one duplicate the other's gain is only ~2 * JITTER (hand: (1+e) - 1/(1+e)).
    assert greedy_map(L, 3) == [0, 2, 1]


def test_similarity_kernel_is_symmetric_with_unit_diagonal() -> None:
    sim = similarity_kernel([DUPLICATE, OTHER, UNRELATED, "the and of", ""])
    assert sim.shape == (5, 5)
    np.testing.assert_array_equal(sim, sim.T)
    np.testing.assert_array_equal(np.diag(sim), np.ones(5))
    assert np.all((sim >= 0) & (sim <= 1))
    # Stop-word-only and empty texts have no terms, so they resemble nothing.
    assert sim[3, 4] == 0.0


def test_similarity_kernel_edge_cases() -> None:
    assert similarity_kernel([]).shape == (0, 0)
    np.testing.assert_array_equal(similarity_kernel(["the", "and of"]), np.eye(2))


def test_select_coreset_is_deterministic() -> None:
    texts = [DUPLICATE, OTHER, UNRELATED, "Median of the price column in a CSV file.", OTHER]
    first = select_coreset(texts, 3)
    assert all(select_coreset(list(texts), 3) == first for _ in range(5))
    # Equal gains go to the lowest index: unrelated texts give L = (1 + JITTER) * I.
    assert greedy_map(dpp_kernel(np.eye(4)), 4) == [0, 1, 2, 3]


def test_quality_shifts_the_choice() -> None:
    # Hand: S has items 0 and 1 90% similar, item 2 orthogonal to both.
    sim = np.array([[1.0, 0.9, 0.0], [0.9, 1.0, 0.0], [0.0, 0.0, 1.0]])
    # q = 1: equal first gains -> 0; then gains 1 - 0.81 = 0.19 (item 1) vs 1 (item 2).
    assert greedy_map(dpp_kernel(sim), 2) == [0, 2]
    # q1 = 3: L11 = 9 wins; then item 0 gains 1 - 2.7^2 / 9 = 0.19 vs item 2 gains 1.
    assert greedy_map(dpp_kernel(sim, [1.0, 3.0, 1.0]), 2) == [1, 2]
    # q2 = 0.1: item 2 gains 0.01 < 0.19, so quality beats diversity and both similar ones go in.
    assert greedy_map(dpp_kernel(sim, [1.0, 1.0, 0.1]), 2) == [0, 1]


def test_quality_shifts_select_coreset() -> None:
    texts = [DUPLICATE, OTHER, UNRELATED]
    assert select_coreset(texts, 1) == [0]
    assert select_coreset(texts, 1, quality=[1.0, 1.0, 2.0]) == [2]


def test_k_zero_and_k_beyond_n() -> None:
    texts = [DUPLICATE, OTHER, UNRELATED, DUPLICATE]
    assert select_coreset(texts, 0) == []
    everything = select_coreset(texts, 10)
    assert sorted(everything) == [0, 1, 2, 3]
    assert everything == select_coreset(texts, 4)
    # The second duplicate adds only jitter-level volume, so it comes last.
    assert everything[-1] == 3
    assert select_coreset([], 0) == []
    assert select_coreset([], 3) == []
    assert greedy_map(np.eye(3), 0) == []
    assert greedy_map(np.eye(3), 7) == [0, 1, 2]


def test_greedy_map_stops_early_on_singular_kernel() -> None:
    v = np.array([1.0, 2.0, 3.0])
    # Rank one: after the largest item no other direction is left.
    assert greedy_map(np.outer(v, v), 3) == [2]
    assert greedy_map(np.zeros((2, 2)), 2) == []


def test_invalid_arguments_raise() -> None:
    with pytest.raises(ValueError, match="k must be non-negative"):
        greedy_map(np.eye(2), -1)
    with pytest.raises(ValueError, match="square"):
        greedy_map(np.ones((2, 3)), 1)
    with pytest.raises(ValueError, match="square"):
        greedy_map(np.ones(3), 1)
    with pytest.raises(ValueError, match="k must be non-negative"):
        select_coreset([DUPLICATE], -1)
    with pytest.raises(ValueError, match="quality must have length"):
        dpp_kernel(np.eye(2), [1.0])
    with pytest.raises(ValueError, match="non-negative"):
        dpp_kernel(np.eye(2), [1.0, -1.0])
