"""scripts/bench_fronts.py: two bench outputs scored on one reference front, checked against
hypervolumes worked by hand."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def bench(folder: Path, points: dict[str, tuple[float, float]]) -> str:
    row = {"variant": "harnesspro", "profile": 1, "misleading": False, "rollouts": 80}
    for mode, (pass_rate, cost) in points.items():
        row |= {f"{mode}_pass": pass_rate, f"{mode}_cost": cost}
    folder.mkdir()
    pd.DataFrame([row]).to_csv(folder / "bench.csv", index=False)
    return str(folder)


def test_two_benches_on_one_front(tmp_path: Path) -> None:
    a = bench(
        tmp_path / "a",
        {"seed": (0.5, 1.0), "lite": (0.5, 0.5), "medium": (0.75, 1.0), "heavy": (1.0, 2.0)},
    )
    b = bench(
        tmp_path / "b",
        {"seed": (0.5, 1.0), "lite": (0.5, 1.0), "medium": (0.5, 1.0), "heavy": (1.0, 1.5)},
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_fronts.py"), f"a={a}", f"b={b}"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    # Reference point: pass 0 at cost 2 x the seed's 1.0 = 2 (a's heavy at 2.0 adds nothing).
    # The union's front (0.5, 0.5), (0.75, 1.0), (1.0, 1.5) covers
    # 1.5 x 0.5 + 1 x 0.25 + 0.5 x 0.25 = 1.125; a's points cover 1.5 x 0.5 + 1 x 0.25 = 1.0
    # and b's 1 x 0.5 + 0.5 x 0.5 = 0.75.
    assert f"| harnesspro@a | {1.0 / 1.125:.3f}" in done.stdout
    assert f"| harnesspro@b | {0.75 / 1.125:.3f}" in done.stdout
    assert "| 80 | 1/0/0 |" in done.stdout  # a beats b on the one profile
    # and the paired difference over that one unit
    assert f"| harnesspro@a - harnesspro@b (normalised_hv) | 1 | {0.25 / 1.125:+.3f}" in done.stdout


def test_a_folder_without_bench_csv_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_fronts.py"), f"a={tmp_path}"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2 and "no bench.csv" in done.stdout and not done.stderr


def test_bench_record_quotes_the_benchs_own_files(tmp_path: Path) -> None:
    (tmp_path / "command.txt").write_text("harnesspro bench --profile-seeds 1 --out o\n")
    (tmp_path / "summary.md").write_text("| a | b |\n|---|---|\n| 1 | 2 |\n\nPower: x\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_record.py"), str(tmp_path), "T",
         "--commit", "abc1234"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    assert done.stdout.startswith("### T\n\n*Recorded ")
    assert "commit abc1234." in done.stdout and "| 1 | 2 |\n\nPower: x\n" in done.stdout
    assert "nice -n 10 .venv/bin/python -m harnesspro bench --profile-seeds 1 --out o\n```" in (
        done.stdout
    )
