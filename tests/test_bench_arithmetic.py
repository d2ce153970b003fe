"""The benchmark's arithmetic against cases worked by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.bench.arithmetic import (
    Point,
    bootstrap_interval,
    heavy_gain,
    lite_cost_cut,
    normalised_hypervolumes,
    paired_wins,
    reference_front,
)
from harnesspro.bench.report import per_profile, run_rows, summary, write_outputs
from harnesspro.bench.runner import Outcome, run_name, variant_config, variants
from harnesspro.cli import main
from harnesspro.core.config import RunConfig

# Strategy A: seed (0.5, 1.0), lite (0.5, 0.5), heavy (0.8, 1.0).
# Strategy B: seed (0.5, 1.0), heavy (0.6, 0.8).
A = [(0.5, 1.0), (0.5, 0.5), (0.8, 1.0)]
B = [(0.5, 1.0), (0.6, 0.8)]
# Reference point (pass 0, cost 2 x 1.0). Areas as staircases over pass rate:
#   A: 0.5 x (2 - 0.5) + 0.3 x (2 - 1.0)                     = 0.75 + 0.30        = 1.05
#   B: 0.6 x (2 - 0.8)                                         = 0.72
#   union front (0.5, 0.5), (0.6, 0.8), (0.8, 1.0):
#      0.5 x 1.5 + 0.1 x 1.2 + 0.2 x 1.0                       = 0.75 + 0.12 + 0.2  = 1.07
HV_A, HV_B, HV_REF = 1.05, 0.72, 1.07


def test_reference_front_is_the_non_dominated_union() -> None:
    assert sorted(reference_front([A, B])) == [(0.5, 0.5), (0.6, 0.8), (0.8, 1.0)]


def test_normalised_hypervolume_by_hand() -> None:
    got = normalised_hypervolumes({"A": A, "B": B})
    assert got["A"] == pytest.approx(HV_A / HV_REF)
    assert got["B"] == pytest.approx(HV_B / HV_REF)


def test_extra_points_enlarge_the_reference() -> None:
    # (1.0, 1.0) adds 0.2 x (2 - 1.0) on top of the union: reference 1.27.
    got = normalised_hypervolumes({"A": A, "B": B}, extra=[(1.0, 1.0)])
    assert got["A"] == pytest.approx(1.05 / 1.27)


def test_seed_comparisons() -> None:
    assert heavy_gain((0.5, 1.0), (0.8, 1.0)) == pytest.approx(0.3)
    assert lite_cost_cut((0.5, 1.0), (0.5, 0.25)) == pytest.approx(0.75)
    assert lite_cost_cut((0.5, 0.0), (0.5, 0.25)) is None
    assert lite_cost_cut((0.5, math.nan), (0.5, 0.25)) is None


def test_bootstrap_interval() -> None:
    flat = bootstrap_interval([0.4, 0.4, 0.4])
    assert (flat.mean, flat.low, flat.high, flat.n) == pytest.approx((0.4, 0.4, 0.4, 3))
    spread = bootstrap_interval([0.0, 1.0, 0.5, 0.25], resamples=4000)
    assert spread.mean == pytest.approx(0.4375)
    assert 0.0 <= spread.low < spread.mean < spread.high <= 1.0
    assert bootstrap_interval([]).n == 0


def test_paired_wins_count_profiles() -> None:
    w = paired_wins({1: 0.9, 2: 0.5, 3: 0.7, 4: 1.0}, {1: 0.8, 2: 0.6, 3: 0.7, 5: 0.1})
    assert (w.wins, w.ties, w.losses) == (1, 1, 1)
    assert w.share == pytest.approx(1 / 3)


def test_report_rows_and_summary_by_hand() -> None:
    def outcome(variant: str, profile: int, points: list[tuple[float, float]]) -> Outcome:
        modes = dict(zip(["seed", "lite", "heavy"], points, strict=False))
        return Outcome(variant, profile, profile == 2, modes, 40, "")

    outcomes = [
        outcome("harnesspro", 1, A),
        outcome("random", 1, B),
        outcome("harnesspro", 2, B),
        outcome("random", 2, A),
    ]
    rows = run_rows(outcomes, {})
    row = rows.set_index(["variant", "profile"])
    assert row.loc[("harnesspro", 1), "normalised_hv"] == pytest.approx(HV_A / HV_REF)
    assert row.loc[("random", 2), "normalised_hv"] == pytest.approx(HV_A / HV_REF)
    assert row.loc[("harnesspro", 1), "heavy_gain"] == pytest.approx(0.3)
    assert row.loc[("harnesspro", 1), "lite_cost_cut"] == pytest.approx(0.5)
    table = summary(rows).set_index("variant")
    # Each strategy has one profile at 1.05/1.07 and one at 0.72/1.07.
    assert table.loc["random", "normalised_hv_mean"] == pytest.approx((HV_A + HV_B) / 2 / HV_REF)
    assert table.loc["random", "default_wins"] == 1
    assert table.loc["random", "default_losses"] == 1
    assert table.loc["harnesspro", "normalised_hv_misleading"] == pytest.approx(HV_B / HV_REF)
    assert isinstance(rows, pd.DataFrame)


def test_run_seeds_average_each_profile_before_the_summary() -> None:
    def outcome(variant: str, profile: int, seed: int, points: list[Point]) -> Outcome:
        modes = dict(zip(["seed", "lite", "heavy"], points, strict=False))
        return Outcome(variant, profile, False, modes, 40, "", run_seed=seed)

    outcomes = [
        outcome("harnesspro", 1, 0, A),
        outcome("harnesspro", 1, 1, B),
        outcome("random", 1, 0, B),
        outcome("random", 1, 1, B),
        outcome("harnesspro", 2, 0, B),
        outcome("harnesspro", 2, 1, B),
        outcome("random", 2, 0, A),
        outcome("random", 2, 1, B),
    ]
    rows = run_rows(outcomes, {})
    # Every run of a profile is on one reference front (A and B together: HV_REF).
    row = rows.set_index(["variant", "profile", "run_seed"])
    assert row.loc[("harnesspro", 1, 0), "normalised_hv"] == pytest.approx(HV_A / HV_REF)
    assert row.loc[("harnesspro", 1, 1), "normalised_hv"] == pytest.approx(HV_B / HV_REF)
    table = summary(rows).set_index("variant")
    # Profile 1: harnesspro (A, B) against random (B, B); profile 2 the other way round.
    both, only_b = (HV_A + HV_B) / 2 / HV_REF, HV_B / HV_REF
    assert table.loc["harnesspro", "normalised_hv_mean"] == pytest.approx((both + only_b) / 2)
    assert table.loc["harnesspro", "profiles"] == 2 and table.loc["random", "run_seeds"] == 2
    assert (table.loc["random", "default_wins"], table.loc["random", "default_losses"]) == (1, 1)
    # Heavy gains: A 0.3, B 0 (its second point is lite; no heavy means the seed's): profile
    # 1 averages (0.3 + 0) / 2, profile 2 (0 + 0) / 2.
    assert table.loc["harnesspro", "heavy_gain_mean"] == pytest.approx((0.15 + 0.0) / 2)


def test_a_run_seed_with_an_unknown_cost_cut_leaves_its_profile_unknown() -> None:
    rows = pd.DataFrame(
        {
            "variant": ["harnesspro"] * 2,
            "profile": [1, 1],
            "run_seed": [0, 1],
            "misleading": [False, False],
            "normalised_hv": [0.5, 0.7],
            "lite_cost_cut": [0.4, None],
        }
    )
    one = per_profile(rows).iloc[0]
    assert one["normalised_hv"] == pytest.approx(0.6)
    assert math.isnan(one["lite_cost_cut"])


def test_bench_json_lists_the_exhaustive_points_by_harness(tmp_path: Path) -> None:
    outcomes = [Outcome("harnesspro", 1, False, {"seed": (0.5, 2.0)}, 40, "")]
    exhaustive = {1: {"seed": (0.5, 2.0), "step_cap": (0.25, 1.0)}}
    rows = run_rows(outcomes, {1: list(exhaustive[1].values())})
    write_outputs(tmp_path, rows, summary(rows), exhaustive)
    written = json.loads((tmp_path / "bench.json").read_text())["exhaustive"]
    assert written == {
        "1": {
            "seed": {"pass_rate": 0.5, "cost_per_task": 2.0},
            "step_cap": {"pass_rate": 0.25, "cost_per_task": 1.0},
        }
    }


def test_a_sixty_profile_bench_draws_every_profile(tmp_path: Path) -> None:
    # plotly refuses the default facet spacing beyond about 15 rows of profiles
    outcomes = [
        Outcome("harnesspro", p, False, {"seed": (0.5, 2.0), "lite": (0.5, 1.0)}, 80, "")
        for p in range(1, 61)
    ]
    rows = run_rows(outcomes, {p: [(0.5, 2.0)] for p in range(1, 61)})
    write_outputs(tmp_path, rows, summary(rows))
    page = (tmp_path / "bench.html").read_text()
    assert all(f'"profile={p}"' in page for p in range(1, 61))


def test_composer_variant_switches_the_composer_on_that_variant_only(tmp_path: Path) -> None:
    chosen = variants(["harnesspro", "random"], racing=True, composer=True)
    labels = [v.label for v in chosen]
    assert labels == ["harnesspro", "random", "harnesspro+racing", "harnesspro+composer"]
    base = RunConfig()
    on = {v.label: variant_config(base, v, 3, tmp_path / "c.sqlite") for v in chosen}
    assert [label for label, c in on.items() if c.evolution.composer] == ["harnesspro+composer"]
    assert on["harnesspro+composer"].evolution.strategy == "harnesspro"
    assert variants(["harnesspro"], racing=False)[-1].label == "harnesspro"


def test_a_run_seed_sets_the_seed_and_names_the_folder_but_keeps_the_splits(
    tmp_path: Path,
) -> None:
    (variant,) = variants(["random"], racing=False)
    base = RunConfig.model_validate({"seed": 5, "tasks": {"split_seed": 3}})
    one = variant_config(base, variant, 7, tmp_path / "c.sqlite")
    other = variant_config(base, variant, 7, tmp_path / "c.sqlite", run_seed=2)
    assert (one.seed, other.seed) == (5, 2)
    assert one.tasks == other.tasks  # the same test split, coreset and validation tasks
    assert other.model.behaviour.seed == 7
    assert (run_name(variant, 7), run_name(variant, 7, 2)) == ("random-p7", "random-p7-s2")


def test_bad_run_seeds_are_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--run-seeds", "1,x", "--out", "/nonexistent/never"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--run-seeds" in err and "integers" in err
