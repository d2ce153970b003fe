"""The screening design is balanced: each mechanism in about half of the candidates, each
candidate about half of the mechanisms, exclusive mechanisms never together."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from harnesspro.improvers.planner.screening import aliasing, screening_design


@pytest.mark.parametrize(("rows", "m"), [(6, 16), (9, 16), (8, 7)])
def test_columns_and_rows_are_balanced(rows: int, m: int) -> None:
    design = screening_design(rows, m, seed=1)
    assert design.shape == (rows, m)
    for j in range(m):  # each mechanism in floor or ceil of half the rows
        assert int(design[:, j].sum()) in {rows // 2, (rows + 1) // 2}
    sizes = design.sum(axis=1)
    assert sizes.max() - sizes.min() <= 2  # stacks of about half the mechanisms
    assert abs(sizes.mean() - m / 2) <= 0.5
    assert np.all(np.abs(sizes - m / 2) <= 1.5)
    assert len({tuple(r) for r in design}) == rows  # distinct candidates


def test_exclusive_mechanisms_never_share_a_row() -> None:
    design = screening_design(6, 16, exclusive=[(14, 15)], seed=0)
    assert not np.any(design[:, 14] & design[:, 15])
    assert design[:, 14].sum() == 3 and design[:, 15].sum() == 3  # still half each


def test_least_aliased_design_is_kept() -> None:
    """Compared by brute force with the correlation of every pair of columns."""
    design = screening_design(8, 7, seed=2, tries=300)
    x = design.astype(float)
    total = 0.0
    for a, b in itertools.combinations(range(7), 2):
        total += np.corrcoef(x[:, a], x[:, b])[0, 1] ** 2
    assert aliasing(design) == pytest.approx(total)
    single = screening_design(8, 7, seed=2, tries=1)
    assert aliasing(design) <= aliasing(single)
    assert max(abs(np.corrcoef(x.T)[np.triu_indices(7, 1)])) <= 0.6
