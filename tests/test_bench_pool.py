"""`harnesspro bench pool` (harnesspro/bench/pool.py) against cases worked by hand."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harnesspro.bench import pool as bench_pool


def bench_csv(folder: Path, profile: int, mine: float, theirs: float) -> Path:
    folder.mkdir(parents=True)
    pd.DataFrame(
        {"variant": ["harnesspro", "nsga2"], "profile": [profile] * 2, "run_seed": [1, 1],
         "normalised_hv": [mine, theirs]}
    ).to_csv(folder / "bench.csv", index=False)  # fmt: skip
    return folder


def paired_row(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("| harnesspro - nsga2"))


def test_pooled_benches_add_their_units_and_refuse_a_unit_twice(tmp_path: Path) -> None:
    pool = bench_pool
    a = bench_csv(tmp_path / "a", 1, 0.9, 0.8)  # +0.1
    b = bench_csv(tmp_path / "b", 2, 0.7, 0.8)  # -0.1
    c = bench_csv(tmp_path / "c", 3, 0.9, 0.6)  # +0.3
    row = paired_row(pool.pooled([a, b, c]))
    assert row.startswith("| harnesspro - nsga2 (normalised_hv) | 3 | +0.100 [")  # (0.1-0.1+0.3)/3
    assert row.endswith("| 2/0/1 |")
    levels = pool.level_rows(pd.concat([pd.read_csv(f / "bench.csv") for f in (a, b, c)]))
    assert levels["harnesspro"].mean == pytest.approx((0.9 + 0.7 + 0.9) / 3)
    assert levels["nsga2"].mean == pytest.approx((0.8 + 0.8 + 0.6) / 3)
    assert levels[pool.BEST].mean == pytest.approx((0.9 + 0.8 + 0.9) / 3)  # each unit's best
    with pytest.raises(ValueError, match="a unit appears in two"):
        pool.pooled([a, bench_csv(tmp_path / "d", 1, 0.5, 0.5)])


def test_a_reference_of_some_variants_alone_by_hand(tmp_path: Path) -> None:
    # seed (0.5, 1.0), reference cost 2; a: lite (0.5, 0.5), medium = heavy (0.8, 1.0):
    # 0.5 x 0.5 + 0.8 x 1.0 = 1.05; b: all three (0.6, 0.8) (the seed under it): 0.6 x 1.2 = 0.72
    row = {"profile": 1, "run_seed": 1, "seed_pass": 0.5, "seed_cost": 1.0}
    rows = pd.DataFrame([
        {**row, "variant": "a", "lite_pass": 0.5, "lite_cost": 0.5, "medium_pass": 0.8,
         "medium_cost": 1.0, "heavy_pass": 0.8, "heavy_cost": 1.0, "normalised_hv": 0.0},
        {**row, "variant": "b", "lite_pass": 0.6, "lite_cost": 0.8, "medium_pass": 0.6,
         "medium_cost": 0.8, "heavy_pass": 0.6, "heavy_cost": 0.8, "normalised_hv": 0.0},
    ])  # fmt: skip
    pool = bench_pool
    # the union: 0.5 x 0.3 + 0.6 x 0.2 + 0.8 x 1.0 = 1.07
    both = pool.against(rows, ["a", "b"])["normalised_hv"]
    assert list(both) == pytest.approx([1.05 / 1.07, 0.72 / 1.07])
    assert list(pool.against(rows, ["b"])["normalised_hv"]) == pytest.approx([1.05 / 0.72, 1.0])
    # at 3x the seed's cost (3.0): a 0.5 x 0.5 + 0.8 x 2.0 = 1.85, b 0.6 x 2.2 = 1.32, the
    # union 0.5 x 0.3 + 0.6 x 0.2 + 0.8 x 2.0 = 1.87
    at3 = pool.normalised(rows, ["a", "b"], 3.0)
    assert at3 == pytest.approx([1.85 / 1.87, 1.32 / 1.87])
    # one point only, at 2x: a's best is medium, 0.8 x 1.0 (lite gives 0.5 x 1.5 = 0.75)
    single = pool.normalised(rows, ["a", "b"], 2.0, single=True)
    assert single == pytest.approx([0.8 / 1.07, 0.72 / 1.07])
    folder = tmp_path / "bench"
    folder.mkdir()
    rows.to_csv(folder / "bench.csv", index=False)
    with pytest.raises(ValueError, match="--reference names c, not benched here"):
        pool.pooled([folder], ["c"])


def test_benches_of_other_commits_pool_only_when_git_shows_the_same_code(tmp_path: Path) -> None:
    a = bench_csv(tmp_path / "a", 1, 0.9, 0.8)
    b = bench_csv(tmp_path / "b", 2, 0.7, 0.8)
    (a / "commit.txt").write_text("aaaa\n")
    (b / "commit.txt").write_text("bbbb\n")
    with pytest.raises(ValueError, match="different commits \\(aaaa, bbbb\\)"):
        bench_pool.pooled([a, b])
    # declared, but git cannot show these (unknown) commits hold the same code: refused
    with pytest.raises(ValueError, match="git diff aaaa bbbb"):
        bench_pool.pooled([a, b], equivalent=["aaaa", "bbbb"])
    (b / "commit.txt").write_text("aaaa\n")
    head = bench_pool.pooled([a, b]).splitlines()
    assert head[0] == "Pool of 2 benches, commit aaaa:"
    assert head[1:3] == [f"- {a}: 1 units, commit aaaa", f"- {b}: 1 units, commit aaaa"]


def test_the_same_code_by_git(tmp_path: Path) -> None:
    import subprocess

    def git(*argv: str) -> str:
        done = subprocess.run(["git", "-C", str(tmp_path), *argv], capture_output=True,
                              text=True, check=True)  # fmt: skip
        return done.stdout.strip()

    git("init", "-q")
    (tmp_path / "harnesspro").mkdir()
    (tmp_path / "harnesspro" / "x.py").write_text("x = 1\n")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    first = git("rev-parse", "HEAD")
    (tmp_path / "README.md").write_text("docs only\n")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "docs")
    docs = git("rev-parse", "HEAD")
    (tmp_path / "harnesspro" / "x.py").write_text("x = 2\n")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "code")
    code = git("rev-parse", "HEAD")
    assert bench_pool.same_code(first, docs, tmp_path)
    assert not bench_pool.same_code(first, code, tmp_path)
    assert bench_pool.head_commit(tmp_path) == code[:12]
    (tmp_path / "harnesspro" / "x.py").write_text("x = 3\n")
    assert bench_pool.head_commit(tmp_path) == code[:12] + "-dirty"


def test_after_minus_before_by_hand(tmp_path: Path) -> None:
    # default - nsga2 per unit: before +0.1 (unit 1), -0.1 (unit 2); after +0.3, -0.1; a unit
    # benched only after (3) is left out
    before = [bench_csv(tmp_path / "b1", 1, 0.9, 0.8), bench_csv(tmp_path / "b2", 2, 0.7, 0.8)]
    after = [
        bench_csv(tmp_path / "a1", 1, 0.9, 0.6),
        bench_csv(tmp_path / "a2", 2, 0.7, 0.8),
        bench_csv(tmp_path / "a3", 3, 0.9, 0.1),
    ]
    row = bench_pool.versus(after, before).splitlines()[2]
    assert row.startswith("| harnesspro - nsga2 (normalised_hv) | 2 | +0.100 [")  # (0.2 + 0) / 2
    assert row.endswith("| 1/1/0 |")
