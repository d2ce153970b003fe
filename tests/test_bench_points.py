"""`harnesspro bench points OUT`: the operating points' areas, the candidates behind them and
the default strategy's survivors, against cases worked by hand."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harnesspro.cli import main
from harnesspro.core.ledger import Ledger


def bench_csv(out: Path) -> None:
    # seed (0.5, 1.0): reference cost 2, the seed's own area 0.5 x 1 = 0.5
    rows = [
        # harnesspro: lite (0.5, 0.5) -> 0.5 x 1.5 = 0.75 -> 1.5 of the seed's;
        # medium (0.8, 1.0) -> 0.8 -> 1.6; heavy = medium
        {"variant": "harnesspro", "profile": 1, "seed_pass": 0.5, "seed_cost": 1.0,
         "lite_pass": 0.5, "lite_cost": 0.5, "medium_pass": 0.8, "medium_cost": 1.0,
         "heavy_pass": 0.8, "heavy_cost": 1.0},
        # nsga2: all three at (1.0, 2.5): beyond the reference cost, no area
        {"variant": "nsga2", "profile": 1, "seed_pass": 0.5, "seed_cost": 1.0,
         "lite_pass": 1.0, "lite_cost": 2.5, "medium_pass": 1.0, "medium_cost": 2.5,
         "heavy_pass": 1.0, "heavy_cost": 2.5},
    ]  # fmt: skip
    out.mkdir(parents=True)
    pd.DataFrame(rows).to_csv(out / "bench.csv", index=False)


def ledger(run: Path, rollouts: list[tuple[str, int, int | None, float, str]]) -> None:
    """A run's ledger: the reference cost 2.0 and (candidate, pass, official pass, cost,
    split) rollouts."""
    run.mkdir(parents=True, exist_ok=True)
    book = Ledger(run / "ledger.sqlite")
    book.set_meta("hypervolume_ref_cost", "2.0")
    with book.db:
        book.db.executemany(
            "INSERT INTO rollouts (key, candidate_id, pass, official_pass, cost, split, status) "
            "VALUES (?, ?, ?, ?, ?, ?, 'ok')",
            [(str(i), *r) for i, r in enumerate(rollouts)],
        )
    book.close()


def survivors_run(run: Path, handed_back: list[str]) -> None:
    # seed (0.5, 1.0); c001 (0.6, 1.0) and c002 (0.9, 1.5) survive, c003 (0.4, 0.2) is below
    # the seed, c004 (0.55, 1.2) is dominated by c001: 2 survivors
    (run / "reports").mkdir(parents=True)
    pd.DataFrame(
        {
            "candidate_id": ["c000", "c001", "c002", "c003", "c004"],
            "shrunk_pass_rate": [0.5, 0.6, 0.9, 0.4, 0.55],
            "shrunk_cost_per_task": [1.0, 1.0, 1.5, 0.2, 1.2],
        }
    ).to_csv(run / "reports" / "shrunk.csv", index=False)
    pd.DataFrame(
        {"harness": ["seed", "lite", "medium", "heavy"], "candidate_id": ["c000", *handed_back]}
    ).to_csv(run / "reports" / "final.csv", index=False)
    ledger(run, [])  # no test rollouts: left out of the candidates' table


def test_points_candidates_and_survivors_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench"
    bench_csv(out)
    ledger(
        out / "runs" / "nsga2-p1",
        [  # candidate, pass, official pass, cost, split
            ("c000", 1, None, 1.0, "coreset"), ("c000", 0, None, 1.0, "coreset"),
            ("c001", 1, None, 0.5, "coreset"), ("c001", 1, None, 0.5, "coreset"),
            ("c000", 1, 1, 1.0, "test"), ("c000", 0, 0, 1.0, "test"),
            ("c001", 1, 1, 0.5, "test"), ("c001", 1, 0, 0.5, "test"),
        ],
    )  # fmt: skip
    # both survivors handed back in one run; in the other only c001 (as all three points)
    survivors_run(out / "runs" / "harnesspro-p1", ["c001", "c002", "c002"])
    survivors_run(out / "runs" / "harnesspro-p2", ["c001", "c001", "c001"])
    assert main(["bench", "points", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "| harnesspro | 1 | 0.00 | 1.00 | 1.500 | 1.600 |" in lines
    assert "| nsga2 | 1 | 1.00 | 1.00 | 0.000 | 0.000 |" in lines
    # nsga2's candidates: coreset pass 0.5 and 1.0 -> 0.75; at reference cost 2 the seed's
    # area is 0.5 x 1 = 0.5 and c001's 1.0 x 1.5 = 1.5 -> 3.0; on the test split (reference
    # 2 x 1.0) the seed's 0.5 x 1 = 0.5, c001's official 0.5 x 1.5 = 0.75 -> 1.5
    assert "| nsga2 | 1 | 0.750 | 3.000 | 1.000 | 1.500 |" in lines
    assert "Candidates (left out 2 runs without test rollouts):" in lines
    assert lines[-1] == (
        "2 harnesspro runs: survivors mean 2.00 (min 2, max 2); the largest-hypervolume three "
        "are the run's own points in 1 of 2"
    )


def test_a_kept_bench_without_run_folders_gives_the_points_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench_csv(tmp_path / "kept")
    assert main(["bench", "points", str(tmp_path / "kept")]) == 0
    out = capsys.readouterr().out
    assert "| nsga2 | 1 |" in out and "no candidates or survivors" in out


def test_not_a_bench_folder_is_one_sentence_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "points", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}: no bench.csv" in err and len(err.strip().splitlines()) == 1
    assert main(["bench", "points"]) == 2
    assert "give one bench folder" in capsys.readouterr().err
