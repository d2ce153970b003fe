"""scripts/bench_points.py, bench_survivors.py, bench_candidates.py and `harnesspro bench pool`
(harnesspro/bench/pool.py) against cases
worked by hand."""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from harnesspro.bench import pool as bench_pool

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


def load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_survivors_and_the_largest_front_by_hand(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "harnesspro-p1"
    (run / "reports").mkdir(parents=True)
    # seed (0.5, 1.0); c001 (0.6, 1.0) and c002 (0.9, 1.5) survive, c003 (0.4, 0.2) is below
    # the seed, c004 (0.55, 1.2) is dominated by c001: 2 survivors, both handed back
    pd.DataFrame(
        {
            "candidate_id": ["c000", "c001", "c002", "c003", "c004"],
            "shrunk_pass_rate": [0.5, 0.6, 0.9, 0.4, 0.55],
            "shrunk_cost_per_task": [1.0, 1.0, 1.5, 0.2, 1.2],
        }
    ).to_csv(run / "reports" / "shrunk.csv", index=False)
    pd.DataFrame(
        {"harness": ["seed", "lite", "medium", "heavy"],
         "candidate_id": ["c000", "c001", "c002", "c002"]}
    ).to_csv(run / "reports" / "final.csv", index=False)  # fmt: skip
    with sqlite3.connect(run / "ledger.sqlite") as db:
        db.execute("create table meta (key text, value text)")
        db.execute("insert into meta values ('hypervolume_ref_cost', '2.0')")
    survivors = load_script("bench_survivors")
    assert survivors.run_row(run) == (2, True)


def test_the_best_candidate_on_the_coreset_and_on_the_test_split_by_hand(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "nsga2-p1"
    run.mkdir(parents=True)
    rows = [  # candidate, pass, official pass, cost, split
        ("c000", 1, None, 1.0, "coreset"), ("c000", 0, None, 1.0, "coreset"),
        ("c001", 1, None, 0.5, "coreset"), ("c001", 1, None, 0.5, "coreset"),
        ("c000", 1, 1, 1.0, "test"), ("c000", 0, 0, 1.0, "test"),
        ("c001", 1, 1, 0.5, "test"), ("c001", 1, 0, 0.5, "test"),
    ]  # fmt: skip
    with sqlite3.connect(run / "ledger.sqlite") as db:
        db.execute("create table meta (key text, value text)")
        db.execute("insert into meta values ('hypervolume_ref_cost', '2.0')")
        db.execute("create table rollouts (candidate_id, pass, official_pass, cost, split, status)")
        db.executemany("insert into rollouts values (?, ?, ?, ?, ?, 'ok')", rows)
    # coreset, reference 2: seed 0.5 x 1 = 0.5, c001 1.0 x 1.5 = 1.5 -> 3.0 of the seed's;
    # test, reference 2 x 1.0: seed 0.5 x 1 = 0.5, c001 0.5 x 1.5 = 0.75 -> 1.5
    assert load_script("bench_candidates").run_row(run) == {
        "candidates' coreset pass": 0.75,
        "best area, coreset": 3.0,
        "best handed back": 1.0,
        "its area, test": 1.5,
    }


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


def test_a_kept_bench_pools_from_its_copy_and_is_never_overwritten(tmp_path: Path) -> None:
    record, pool = load_script("bench_record"), bench_pool
    a = bench_csv(tmp_path / "a", 1, 0.9, 0.8)  # +0.1
    b = bench_csv(tmp_path / "b", 2, 0.6, 0.8)  # -0.2
    for out in (a, b):
        (out / "command.txt").write_text("harnesspro bench --profile-seeds ...\n")
        (out / "summary.md").write_text("| table |\n")
    assert record.main([str(a), "A", "--commit", "abc", "--keep", str(tmp_path / "kept/a")]) == 0
    kept = tmp_path / "kept" / "a"
    assert sorted(p.name for p in kept.iterdir()) == ["bench.csv", "command.txt", "summary.md"]
    # the copy pools as the original did: (0.1 - 0.2) / 2 over the two units
    row = paired_row(pool.pooled([kept, b]))
    assert row.startswith("| harnesspro - nsga2 (normalised_hv) | 2 | -0.050 [")
    # a second bench into the same folder is refused, and the first copy stays as it was
    assert record.main([str(b), "B", "--commit", "abc", "--keep", str(kept)]) == 2
    assert pd.read_csv(kept / "bench.csv")["profile"].tolist() == [1, 1]


def test_replicates_by_hand() -> None:
    bench_replicates = load_script("bench_replicates")

    def row(profile: int, hv: float, seed_pass: float) -> dict[str, object]:
        return {"variant": "a", "profile": profile, "normalised_hv": hv,
                "seed_pass": seed_pass, "seed_cost": 1.0}  # fmt: skip

    # profile 1: the seed measured at 0.5 and 0.25 (cost 1, reference cost 2): areas 0.5 and
    # 0.25 against the front's 0.5, so (1 + 0.5) / 2 = 0.75; profile 2: the same twice, 1.0
    rows = pd.DataFrame([row(1, 0.9, 0.5), row(1, 0.6, 0.25), row(2, 1.0, 0.4), row(2, 0.8, 0.4)])
    table = bench_replicates.figures(rows)
    assert table["normalised HV of a replicate"].mean == pytest.approx((0.75 + 0.9) / 2)
    assert table["the best replicate's"].mean == pytest.approx((0.9 + 1.0) / 2)
    assert table["the worst replicate's"].mean == pytest.approx((0.6 + 0.8) / 2)
    seed_alone = table["the seed point alone, against its own measurements"]
    assert seed_alone.mean == pytest.approx((0.75 + 1.0) / 2)
    sd = table["SD of the seed's test pass rate"]
    assert sd.mean == pytest.approx((0.125 * 2**0.5 + 0) / 2)
    with pytest.raises(ValueError, match="two or more run seeds"):
        bench_replicates.figures(rows.iloc[:3])
    # a profile whose seed never passed has no area to compare with: left out of that line
    nothing = pd.DataFrame([row(3, 0.5, 0.0), row(3, 0.7, 0.0)])
    table = bench_replicates.figures(pd.concat([rows, nothing]))
    assert table["the seed point alone, against its own measurements"].n == 2


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
