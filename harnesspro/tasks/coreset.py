"""Diverse task coresets via greedy MAP inference for a DPP (Chen, Zhang and Zhou, NeurIPS 2018)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

# scikit-learn is imported where it is used: it costs ~0.8 s per process, and every Ray worker
# imports this module (through the engine) without ever drawing a coreset.

# Keeps L positive definite: with duplicate texts S has identical rows, so L is singular and the
# Cholesky pivot d_i^2 of a duplicate is exactly 0 in theory and +-rounding noise in practice.
# Adding JITTER * I bounds every pivot below by JITTER (the smallest eigenvalue), so duplicates
# stay selectable but rank strictly after any item carrying real novelty.
JITTER = 1e-6

# Pivots below this carry no new direction; well under JITTER so dpp_kernel output never stops.
EPSILON = 1e-10


def tfidf_vectors(texts: Sequence[str]) -> sp.csr_matrix | None:
    """Sublinear TF-IDF rows, L2-normalised (so dot products are cosines); None when the
    vocabulary is empty (only stop words or blanks)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    if len(texts) == 0:
        return None
    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english")
    try:
        return sp.csr_matrix(vectorizer.fit_transform(list(texts)))
    except ValueError:
        return None


def similarity_kernel(texts: Sequence[str]) -> npt.NDArray[np.float64]:
    """Return the cosine similarity of sublinear TF-IDF vectors, symmetric with unit diagonal."""
    from sklearn.metrics.pairwise import cosine_similarity

    n = len(texts)
    tfidf = tfidf_vectors(texts)
    if tfidf is None:
        # Nothing to compare: treat all as distinct.
        return np.eye(n)
    sim = np.asarray(cosine_similarity(tfidf), dtype=np.float64)
    # Rounding can leave S slightly asymmetric or above 1; TF-IDF is non-negative so [0, 1] holds.
    sim = np.clip((sim + sim.T) / 2.0, 0.0, 1.0)
    # All-stop-word texts have zero vectors (self-similarity 0); a unit diagonal keeps S PSD.
    np.fill_diagonal(sim, 1.0)
    return sim


def _quality(quality: Sequence[float] | None, n: int) -> npt.NDArray[np.float64]:
    q = np.ones(n) if quality is None else np.asarray(quality, dtype=np.float64)
    if q.shape != (n,):
        raise ValueError(f"quality must have length {n}, got shape {q.shape}")
    if not np.all(np.isfinite(q)) or np.any(q < 0):
        raise ValueError("quality must be finite and non-negative")
    return q


def dpp_kernel(
    similarity: npt.ArrayLike, quality: Sequence[float] | None = None
) -> npt.NDArray[np.float64]:
    """Return the DPP kernel L = diag(q) S diag(q) + JITTER * I."""
    sim = np.asarray(similarity, dtype=np.float64)
    if sim.ndim != 2 or sim.shape[0] != sim.shape[1]:
        raise ValueError(f"similarity must be a square matrix, got shape {sim.shape}")
    n = sim.shape[0]
    q = _quality(quality, n)
    kernel = q[:, None] * sim * q[None, :]
    kernel[np.diag_indices(n)] += JITTER
    return kernel


def greedy_map(L: npt.ArrayLike, k: int) -> list[int]:
    """Return up to k indices greedily maximising log det(L[S, S]), via incremental Cholesky."""
    kernel = np.asarray(L, dtype=np.float64)
    if kernel.ndim != 2 or kernel.shape[0] != kernel.shape[1]:
        raise ValueError(f"L must be a square matrix, got shape {kernel.shape}")
    return greedy_map_rows(np.diag(kernel), lambda j: kernel[j], k)


def greedy_map_rows(
    diagonal: npt.NDArray[np.float64], row: Callable[[int], npt.NDArray[np.float64]], k: int
) -> list[int]:
    """`greedy_map` given only L's diagonal and a way to get row j: only the k picked rows are
    ever needed, so a 10,000-task pool never materialises its 10,000 x 10,000 kernel."""
    if k < 0:
        raise ValueError(f"k must be non-negative, got {k}")
    n = diagonal.shape[0]
    k = min(k, n)
    # Row m of c holds the m-th Cholesky column entries for every item; d2 is each item's
    # marginal gain det(L[S+i]) / det(L[S]), i.e. its squared Cholesky pivot.
    c = np.zeros((k, n))
    d2 = np.array(diagonal, dtype=np.float64)
    selected: list[int] = []
    while len(selected) < k:
        # np.argmax returns the first maximum, which gives the lowest-index tie-break.
        j = int(np.argmax(d2))
        if not d2[j] >= EPSILON:  # also catches NaN
            break
        m = len(selected)
        e = (row(j) - c[:m, j] @ c[:m]) / np.sqrt(d2[j])
        c[m] = e
        d2 -= e * e
        selected.append(j)
        d2[selected] = -np.inf
    return selected


def select_coreset(
    texts: Sequence[str], k: int, quality: Sequence[float] | None = None
) -> list[int]:
    """Return indices of a diverse (and, given quality, good) subset of texts, in greedy order."""
    if k < 0:
        raise ValueError(f"k must be non-negative, got {k}")
    n = len(texts)
    q = _quality(quality, n)
    vectors = tfidf_vectors(texts)

    def kernel_row(j: int) -> npt.NDArray[np.float64]:
        # Row j of dpp_kernel(similarity_kernel(texts), quality), computed on demand.
        sim = np.zeros(n) if vectors is None else (vectors @ vectors[j].T).toarray().ravel()
        sim = np.clip(sim, 0.0, 1.0)
        sim[j] = 1.0
        out = q[j] * sim * q
        out[j] += JITTER
        return out

    order = greedy_map_rows(q * q + JITTER, kernel_row, min(k, n))
    if k >= n and len(order) < n:
        # Only reachable through rounding (JITTER keeps every pivot >= EPSILON), but the
        # "k >= n returns everything" contract should not depend on it.
        seen = set(order)
        order += [i for i in range(n) if i not in seen]
    return order
