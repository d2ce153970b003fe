"""scripts/bench_points.py against areas worked by hand."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_points", ROOT / "scripts" / "bench_points.py")
assert spec and spec.loader
bench_points = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_points)


def test_areas_and_coinciding_points_by_hand() -> None:
    # seed (0.5, 1.0): reference cost 2, the seed's own area 0.5 x 1 = 0.5
    rows = pd.DataFrame(
        [
            # a: lite (0.5, 0.5) -> 0.75 -> 1.5; medium (0.8, 1.0) -> 0.8 -> 1.6; heavy = medium
            {"variant": "a", "seed_pass": 0.5, "seed_cost": 1.0, "lite_pass": 0.5,
             "lite_cost": 0.5, "medium_pass": 0.8, "medium_cost": 1.0, "heavy_pass": 0.8,
             "heavy_cost": 1.0},
            # b: all three at (1.0, 2.5): beyond the reference cost, no area
            {"variant": "b", "seed_pass": 0.5, "seed_cost": 1.0, "lite_pass": 1.0,
             "lite_cost": 2.5, "medium_pass": 1.0, "medium_cost": 2.5, "heavy_pass": 1.0,
             "heavy_cost": 2.5},
        ]
    )  # fmt: skip
    lines = bench_points.table(rows).splitlines()
    assert lines[2] == "| a | 1 | 0.00 | 1.00 | 1.500 | 1.600 |"
    assert lines[3] == "| b | 1 | 1.00 | 1.00 | 0.000 | 0.000 |"
