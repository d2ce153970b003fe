"""CI-sized `harnesspro bench`: 2 profiles x 3 strategies on a tiny budget, with the report's
arithmetic recomputed here independently (a staircase area, not pymoo)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from harnesspro.cli import main
from tests.conftest import SCRIPTED_PRICE

pytestmark = pytest.mark.slow
MODES = ("seed", "lite", "medium", "heavy")


def staircase_area(points: list[tuple[float, float]], ref_cost: float) -> float:
    """Area of {(t, y): some point has pass >= t and cost <= y <= ref_cost}."""
    levels = sorted({p for p, _ in points if p > 0})
    area, below = 0.0, 0.0
    for level in levels:
        cheapest = min(c for p, c in points if p >= level)
        area += (level - below) * max(0.0, ref_cost - cheapest)
        below = level
    return area


def test_tiny_bench_runs_and_its_arithmetic_holds(tmp_path: Path, ray_session: None) -> None:
    config = tmp_path / "bench.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "name": "smoke",
                "model": {"name": "scripted", "upstream": "scripted"},
                "prices": {"scripted": SCRIPTED_PRICE.model_dump()},
                "tasks": {"suite": "builtin", "test_fraction": 0.05},
                "coreset": {"size": 2},
                "evolution": {"epochs": 5, "rollouts_per_task": 1},
                "evaluation": {
                    "validation_rollouts": 0,
                    "attempts": 1,
                    "max_rollouts": 6,
                    "official_on_search": False,
                },
                "reports": {"dashboard": "end"},
            }
        )
    )
    out = tmp_path / "out"
    code = main(
        [
            "bench",
            "--config",
            str(config),
            "--profile-seeds",
            "1,2",
            "--no-racing",
            "--strategies",
            "harnesspro,random,nsga2",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    rows = pd.read_csv(out / "bench.csv")
    assert sorted(rows["variant"].unique()) == ["harnesspro", "nsga2", "random"]
    assert sorted(rows["profile"].unique()) == [1, 2]
    assert (rows["rollouts"] <= 6).all()  # equal budget: nobody spends past the cap
    measured = 0  # profiles where some point passes: the others have no area to normalise by
    for _, group in rows.groupby("profile"):
        sets = {
            r["variant"]: [
                (r[f"{m}_pass"], r[f"{m}_cost"])
                for m in MODES
                if f"{m}_pass" in r and pd.notna(r[f"{m}_pass"])
            ]
            for _, r in group.iterrows()
        }
        # the profile's yardstick, built by this bench: reference cost twice the seed's
        seed_costs = [pts[0][1] for pts in sets.values()]
        ref_cost = 2 * sum(seed_costs) / len(seed_costs)
        whole = staircase_area([p for pts in sets.values() for p in pts], ref_cost)
        if whole == 0:  # nothing passed on this tiny split: the ratio is undefined, not 0
            assert group["normalised_hv"].isna().all()
            continue
        measured += 1
        for _, r in group.iterrows():
            expected = staircase_area(sets[r["variant"]], ref_cost) / whole
            assert r["normalised_hv"] == pytest.approx(expected)
            seed, heavy = sets[r["variant"]][0], r["heavy_pass"]
            assert r["heavy_gain"] == pytest.approx(heavy - seed[0])
            seed_share = staircase_area([seed], ref_cost) / whole
            assert r["hv_gain"] == pytest.approx(expected - seed_share)
    summary = pd.read_csv(out / "summary.csv").set_index("variant")
    for variant, group in rows.groupby("variant"):
        assert summary.loc[variant, "normalised_hv_mean"] == pytest.approx(
            group["normalised_hv"].mean()
        )
    paired = pd.read_csv(out / "paired.csv").set_index("other")
    assert measured >= 1  # the arithmetic above was checked on at least one profile
    assert sorted(paired.index) == ["nsga2", "random"] and (paired["units"] == measured).all()
    assert (out / "yardsticks" / "profile-1.json").is_file()
    text = (out / "summary.md").read_text()
    assert "Power:" in text and "Resolution:" in text and "Wall time:" in text
    assert (out / "command.txt").read_text().startswith("harnesspro bench --config")
    assert "plotly" in (out / "bench.html").read_text()[:2_000_000].lower()
    # A run folder marked complete without final.csv (written before runs were marked
    # complete after their held-out evaluation): the same command resumes it, same figures.
    (out / "runs" / "random-p2" / "reports" / "final.csv").unlink()
    assert main(["bench", "--config", str(config), "--profile-seeds", "1,2", "--no-racing",
                 "--strategies", "harnesspro,random,nsga2", "--out", str(out)]) == 0  # fmt: skip
    assert pd.read_csv(out / "bench.csv").equals(rows)
