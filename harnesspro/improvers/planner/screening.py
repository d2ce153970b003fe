"""A balanced screening design: the first candidates measure many levers at once.

Each of `rows` candidates stacks about half of the mechanisms, and each mechanism is in about
half of the candidates (a two-level design in the spirit of a fractional factorial): with
task intercepts shared, every main effect is estimated from every rollout, instead of two
mechanisms per candidate measured against their parent. Mechanisms that override each other
(`exclusive` groups: the same setting) never share a row. Among random balanced designs the
one whose columns are least correlated is kept, so main effects are least aliased.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Design = npt.NDArray[np.bool_]


def _column(rows: int, ones: int, free: npt.NDArray[np.bool_], load: npt.NDArray[np.int64],
            rng: np.random.Generator) -> npt.NDArray[np.bool_]:  # fmt: skip
    """`ones` rows among `free`, the less loaded first (loads jittered by up to 2, so the
    draws differ and columns do not come out as complements of each other)."""
    order = np.argsort(load + 2.0 * rng.random(rows), kind="stable")
    chosen = [r for r in order if free[r]][:ones]
    col = np.zeros(rows, dtype=bool)
    col[chosen] = True
    return col


def _draw(
    rows: int, m: int, exclusive: Sequence[Sequence[int]], rng: np.random.Generator
) -> Design:
    design = np.zeros((rows, m), dtype=bool)
    group_of = {j: tuple(g) for g in exclusive for j in g}
    for n, j in enumerate(rng.permutation(m)):
        ones = rows // 2 + (rows % 2) * (n % 2)  # odd rows: alternate floor/ceil
        others = [k for k in group_of.get(int(j), ()) if k != j]
        free = np.asarray(~design[:, others].any(axis=1), dtype=bool)
        design[:, j] = _column(rows, ones, free, design.sum(axis=1), rng)
    return design


def aliasing(design: Design) -> float:
    """Sum of squared correlations between distinct columns (0 = orthogonal)."""
    x = design.astype(float)
    x = x - x.mean(axis=0)
    norms = np.linalg.norm(x, axis=0)
    norms[norms == 0] = 1.0
    corr = (x.T @ x) / np.outer(norms, norms)
    return float(np.sum(np.triu(corr, 1) ** 2))


def screening_design(
    rows: int, m: int, exclusive: Sequence[Sequence[int]] = (), seed: int = 0, tries: int = 400
) -> Design:
    """A `rows` x `m` design: distinct non-empty rows, balanced columns, the one of `tries`
    draws least aliased and with the most even row sizes."""
    rng = np.random.default_rng(seed)
    best: Design | None = None
    best_score = np.inf
    for _ in range(tries):
        design = _draw(rows, m, exclusive, rng)
        distinct = len({r.tobytes() for r in design}) == rows and design.any(axis=1).all()
        sizes = design.sum(axis=1)
        score = aliasing(design) + float(np.var(sizes))
        if distinct and score < best_score:
            best, best_score = design, score
    if best is None:
        raise ValueError(f"no balanced design of {rows} distinct rows over {m} mechanisms")
    return best
