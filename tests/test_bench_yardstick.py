"""The fixed yardstick per profile against 2-D hypervolumes worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from harnesspro.bench.report import run_rows
from harnesspro.bench.runner import Outcome
from harnesspro.bench.yardstick import load, path_for, stored
from harnesspro.core.config_base import ConfigError

# Seed (0.5, 1.0): reference point (pass 0, cost 2 x 1.0 = 2).
A = [("a:seed", 0.5, 1.0), ("a:lite", 0.5, 0.5), ("a:heavy", 0.8, 1.0)]
# A's front (0.5, 0.5), (0.8, 1.0) as a staircase over pass rate: 0.5 x 1.5 + 0.3 x 1.0 = 1.05
B = [("b:seed", 0.5, 1.0), ("b:heavy", 0.6, 0.8), ("b:x", 0.9, 1.5), ("b:dear", 1.0, 3.0)]
# With B: (0.5, 0.5), (0.6, 0.8), (0.8, 1.0), (0.9, 1.5); (1.0, 3.0) is past the reference
# cost and adds nothing: 0.5 x 1.5 + 0.1 x 1.2 + 0.2 x 1.0 + 0.1 x 0.5 = 1.12


def test_built_once_then_extended_never_shrunk(tmp_path: Path) -> None:
    first = stored(tmp_path, 1, "k", [(0.5, 1.0)], A)
    assert first.ref_cost == pytest.approx(2.0)
    assert first.hypervolume() == pytest.approx(1.05)
    # A later bench whose seed cost 4.0: the reference cost stays where it was fixed.
    second = stored(tmp_path, 1, "k", [(0.5, 4.0)], B)
    assert second.ref_cost == pytest.approx(2.0)
    assert second.hypervolume() == pytest.approx(1.12)
    assert second.normalised([(p, c) for _, p, c in A]) == pytest.approx(1.05 / 1.12)
    # A bench that adds only dominated points leaves it as it was; no point is ever dropped.
    third = stored(tmp_path, 1, "k", [(0.5, 1.0)], [("c:heavy", 0.4, 1.9)])
    assert set(second.points) < set(third.points)
    assert third.hypervolume() == pytest.approx(1.12)
    assert load(path_for(tmp_path, 1)) == third


def test_another_test_setup_is_refused_in_one_sentence(tmp_path: Path) -> None:
    stored(tmp_path, 2, "k", [(0.5, 1.0)], A)
    with pytest.raises(ConfigError, match="profile-2.json: measured on another test setup"):
        stored(tmp_path, 2, "other", [(0.5, 1.0)], A)


def test_rows_report_normalised_hv_and_gain_over_the_seed() -> None:
    points = {"seed": (0.5, 1.0), "lite": (0.5, 0.5), "heavy": (0.8, 1.0)}
    rows = run_rows([Outcome("harnesspro", 1, False, points, 40, "")], {})
    row = rows.iloc[0]
    assert row["normalised_hv"] == pytest.approx(1.0)  # its points are the whole front
    # the seed alone covers 0.5 x (2 - 1.0) = 0.5 of 1.05
    assert row["hv_gain"] == pytest.approx(1 - 0.5 / 1.05)
