"""A one-epoch run on a tiny config: ledger, worktrees, reports, profiles, export, resume."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from harnesspro.cli import main


def rows(run_dir: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        return db.execute(sql).fetchall()


def test_ledger_holds_candidates_rollouts_epochs(finished_run: Path) -> None:
    candidates = rows(finished_run, "SELECT id, parent, directive FROM candidates ORDER BY id")
    assert candidates[0] == ("c000", None, None)
    assert {c[2] for c in candidates[1:]} == {"cost-first", "balanced", "performance-first"}
    per_candidate = rows(
        finished_run,
        "SELECT candidate_id, count(*) FROM rollouts WHERE split = 'coreset' GROUP BY 1",
    )
    assert all(n == 3 * 2 for _, n in per_candidate)  # 3 coreset tasks x G = 2
    assert len(per_candidate) == len(candidates)
    # Every coreset and validation rollout is graded by a frozen test; test-split ones never.
    ungraded = "SELECT DISTINCT split FROM rollouts WHERE pass IS NULL"
    assert rows(finished_run, ungraded) == [("test",)]
    # Every rollout really ran: the scripted policy's harness finishes cleanly.
    assert rows(finished_run, "SELECT DISTINCT status FROM rollouts") == [("ok",)]
    ((fewest_calls, least_output),) = rows(
        finished_run, "SELECT min(n_calls), min(output) FROM rollouts"
    )
    assert fewest_calls > 1 and least_output > 0  # each compared on its own
    assert [e for (e,) in rows(finished_run, "SELECT epoch FROM epochs")] == [0, 1]
    assert rows(finished_run, "SELECT count(DISTINCT mode) FROM selections WHERE epoch = 1") == [
        (3,)
    ]
    assert len(rows(finished_run, "SELECT * FROM synth_tests")) == 3 + 2  # coreset + validation


def test_worktree_per_candidate_and_reports(finished_run: Path) -> None:
    worktrees = sorted(p.name for p in (finished_run / "worktrees").iterdir())
    assert worktrees == [f"c00{i}" for i in range(1, len(worktrees) + 1)]
    for epoch in (0, 1):
        html = (finished_run / "reports" / f"epoch-{epoch}" / "pareto.html").read_text()
        assert "Plotly.newPlot" in html and "<script src=" not in html  # self-contained
        header = (
            (finished_run / "reports" / f"epoch-{epoch}" / "costs.csv").read_text().splitlines()[0]
        )
        for column in ("uncached_input", "cached_input", "output", "dollars"):
            assert column in header
    config = (finished_run / "config.yaml").read_text()
    assert "rollouts_per_task: 2" in config


def test_profiles_json_and_export(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["points", str(finished_run), "--json"]) == 0
    profiles = json.loads(capsys.readouterr().out)
    assert set(profiles) == {"lite", "medium", "heavy"}
    heavy = profiles["heavy"]
    assert {"commit", "pass_rate", "cost_per_task", "candidate"} <= set(heavy)
    assert {"pass_rate_ci", "cost_ci", "p_nondominated"} <= set(heavy)
    lo, hi = heavy["pass_rate_ci"]
    assert lo <= heavy["pass_rate"] <= hi and 0 <= heavy["p_nondominated"] <= 1
    out = tmp_path / "heavy"
    assert main(["export", str(finished_run), "--point", "heavy", "--out", str(out)]) == 0
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", heavy["commit"]],
        cwd=finished_run / "harness",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    exported = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    # The commit's tree, plus the export's README and provenance (test_export.py reads them).
    assert exported == sorted([*listed, "README.md", "provenance.json"])
    for name in set(listed) - {"harness.toml"}:  # harness.toml is renamed after the profile
        blob = subprocess.run(
            ["git", "show", f"{heavy['commit']}:{name}"],
            cwd=finished_run / "harness",
            capture_output=True,
            check=True,
        ).stdout
        assert (out / name).read_bytes() == blob
    assert main(["export", str(finished_run), "--point", "heavy", "--out", str(out)]) == 2


def run_copy(finished_run: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the shared finished run (which stays read-only: other workers read it
    meanwhile) and its config."""
    copy = tmp_path / "run"
    shutil.copytree(finished_run, copy, symlinks=True)
    return copy, finished_run.parent.parent / "tiny.yaml"


def test_rerun_resumes_without_new_rollouts(finished_run: Path, tmp_path: Path) -> None:
    run_dir, config = run_copy(finished_run, tmp_path)
    before = rows(run_dir, "SELECT key, created FROM rollouts ORDER BY key")
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    assert rows(run_dir, "SELECT key, created FROM rollouts ORDER BY key") == before


def test_rerun_with_another_config_is_refused(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, config = run_copy(finished_run, tmp_path)
    code = main(["evolve", "--config", str(config), "--run-dir", str(run_dir), "--set", "seed=7"])
    assert code == 2
    assert "different config" in capsys.readouterr().err


def test_report_command(finished_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(finished_run)]) == 0
    out = capsys.readouterr().out
    assert "epoch 0" in out and "epoch 1" in out and "pareto.html" in out
    assert "failure recall" in out and "budget rollouts" in out


def test_python_m_evolve_is_the_same_command(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("nonsense_key: 1\n")
    result = subprocess.run(
        [sys.executable, "-m", "harnesspro.evolve", "--config", str(bad)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "unknown key 'nonsense_key'" in result.stderr
