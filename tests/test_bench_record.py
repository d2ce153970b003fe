"""scripts/bench_record.py: a docs section quoted from a bench's own files, and the kept copy
that `harnesspro bench pool` pools from after the bench's folder is gone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.cli import main
from tests.test_bench_pool import bench_csv as pool_bench

ROOT = Path(__file__).resolve().parents[1]


def record(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_record.py"), *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_bench_record_quotes_the_benchs_own_files(tmp_path: Path) -> None:
    (tmp_path / "command.txt").write_text("harnesspro bench --profile-seeds 1 --out o\n")
    (tmp_path / "summary.md").write_text("| a | b |\n|---|---|\n| 1 | 2 |\n\nPower: x\n")
    done = record(str(tmp_path), "T", "--commit", "abc1234")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("### T\n\n*Recorded ")
    assert "commit abc1234." in done.stdout and "| 1 | 2 |\n\nPower: x\n" in done.stdout
    assert "nice -n 10 .venv/bin/python -m harnesspro bench --profile-seeds 1 --out o\n```" in (
        done.stdout
    )


def bench_csv(folder: Path, profile: int, mine: float, theirs: float) -> Path:
    """A finished bench's folder as pool reads it, with the files bench_record.py quotes."""
    pool_bench(folder, profile, mine, theirs)
    (folder / "command.txt").write_text("harnesspro bench --profile-seeds ...\n")
    (folder / "summary.md").write_text("| table |\n")
    return folder


def test_a_kept_bench_pools_from_its_copy_and_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = bench_csv(tmp_path / "a", 1, 0.9, 0.8)  # +0.1
    b = bench_csv(tmp_path / "b", 2, 0.6, 0.8)  # -0.2
    kept = tmp_path / "kept" / "a"
    assert record(str(a), "A", "--commit", "abc", "--keep", str(kept)).returncode == 0
    assert sorted(p.name for p in kept.iterdir()) == ["bench.csv", "command.txt", "summary.md"]
    # the copy pools as the original did: (0.1 - 0.2) / 2 over the two units
    assert main(["bench", "pool", str(kept), str(b)]) == 0
    out = capsys.readouterr().out
    assert "| harnesspro - nsga2 (normalised_hv) | 2 | -0.050 [" in out
    # a second bench into the same folder is refused, and the first copy stays as it was
    assert record(str(b), "B", "--commit", "abc", "--keep", str(kept)).returncode == 2
    assert pd.read_csv(kept / "bench.csv")["profile"].tolist() == [1, 1]
