"""Paired differences over (profile, run seed) units against cases worked by hand and an
exact bootstrap enumerated by brute force."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harnesspro.bench.paired import compare, detectable_difference, paired_frame, paired_markdown
from harnesspro.bench.runner import variant_config, variants
from harnesspro.core.config import load_config

ROOT = Path(__file__).resolve().parents[1]


def test_power_by_hand() -> None:
    # differences +0.1, -0.1, +0.1, -0.1: mean 0, SD (n - 1) = sqrt(4 x 0.01 / 3) = 0.11547;
    # (1.645 + 0.842) x 0.11547 / sqrt(4) = 2.487 x 0.05774 = 0.14358
    assert detectable_difference([0.1, -0.1, 0.1, -0.1]) == pytest.approx(0.1436, abs=2e-4)
    assert math.isnan(detectable_difference([0.3]))


def test_two_units_zero_and_one_give_the_whole_range() -> None:
    # Resampling two units: means 0 (1/4), 0.5 (1/2), 1 (1/4); the 5th percentile is 0 and the
    # 95th is 1, the mean 0.5.
    p = compare("x", {"a": 1.0, "b": 0.5}, {"a": 0.0, "b": 0.5})
    assert (p.mean, p.low, p.high) == pytest.approx((0.5, 0.0, 1.0))
    assert (p.units, p.wins, p.ties, p.losses) == (2, 1, 1, 0)


def test_interval_matches_the_exact_bootstrap() -> None:
    diffs = [0.12, -0.05, 0.0, 0.31, 0.08]
    # every one of the 5^5 resamples, each equally likely: the exact bootstrap distribution
    means = sorted(sum(c) / 5 for c in itertools.product(diffs, repeat=5))
    low, high = np.percentile(means, [5, 95])
    mine = {i: d for i, d in enumerate(diffs)}
    p = compare("x", mine, {i: 0.0 for i in mine})
    assert p.mean == pytest.approx(0.092)
    assert p.low == pytest.approx(low, abs=0.01) and p.high == pytest.approx(high, abs=0.01)
    again = compare("x", mine, {i: 0.0 for i in mine})
    assert (again.low, again.high) == (p.low, p.high)  # a fixed RNG seed: reproducible


def test_frame_pairs_by_profile_and_run_seed_and_skips_unpaired_units() -> None:
    rows = pd.DataFrame(
        {
            "variant": ["harnesspro"] * 3 + ["random"] * 3,
            "profile": [1, 1, 2, 1, 1, 3],
            "run_seed": [0, 1, 0, 0, 1, 0],
            "normalised_hv": [0.8, 0.6, 0.9, 0.7, 0.7, 0.1],
        }
    )
    (row,) = paired_frame(rows, "harnesspro").to_dict("records")
    # units (1, 0): +0.1 and (1, 1): -0.1; profile 2 and 3 have one strategy each
    assert row["units"] == 2 and row["mean"] == pytest.approx(0.0)
    assert (row["wins"], row["losses"]) == (1, 1)
    assert row["sd"] == pytest.approx(math.sqrt(0.02))
    text = paired_markdown(paired_frame(rows, "harnesspro"), "harnesspro")
    assert "harnesspro - random" in text and "Power: at 2 units" in text
    # SD sqrt(0.02) = 0.1414: (2.487 x 0.1414 / 0.05)^2 = 7.034^2 = 49.5 -> 50 units
    assert "detecting 0.05 would take about 50 units" in text
    # the unpaired profiles 2 and 3 are said to be left out, not silently dropped
    assert row["left_out"] == 2 and "2 unit(s) left out" in text


def test_a_unit_with_an_undefined_figure_is_left_out_and_said() -> None:
    rows = pd.DataFrame(
        {
            "variant": ["harnesspro"] * 3 + ["random"] * 3,
            "profile": [1, 2, 3, 1, 2, 3],
            "normalised_hv": [0.8, float("nan"), 0.5, 0.6, float("nan"), 0.7],
        }
    )
    (row,) = paired_frame(rows, "harnesspro").to_dict("records")
    assert (row["units"], row["left_out"]) == (2, 1)
    assert row["mean"] == pytest.approx(0.0)  # +0.2 and -0.2
    assert "1 unit(s) left out" in paired_markdown(paired_frame(rows, "harnesspro"), "harnesspro")


def test_every_strategy_on_a_unit_shares_splits_seed_profile_and_cache(tmp_path: Path) -> None:
    """A unit's runs differ only in what names the strategy: the same splits (the manifest),
    the same run seed (the policy's sampling seed is seed:task:attempt), the same profile and
    the same rollout cache, so their draws are shared."""
    base = load_config(ROOT / "configs" / "bench.yaml", [])
    configs = [
        variant_config(base, v, 7, tmp_path / "cache.sqlite", run_seed=3).model_dump(mode="json")
        for v in variants(["harnesspro", "random", "nsga2", "rho"], racing=False)
    ]
    for c in configs:
        c["name"] = c["evolution"]["strategy"] = None
    assert all(c == configs[0] for c in configs)
    assert configs[0]["seed"] == 3 and configs[0]["model"]["behaviour"]["seed"] == 7
