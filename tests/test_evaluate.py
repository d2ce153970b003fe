"""Held-out evaluation: pass@k, normalised gain, the resolution band, the final report on a
hand-built ledger, test-split isolation from improvers, and end-to-end runs (final report,
agreement, budget cap, `harnesspro eval`)."""

from __future__ import annotations

import itertools
import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from harnesspro.cli import main
from harnesspro.core.config import load_config
from harnesspro.core.ledger import rows_of
from harnesspro.core.records import RolloutResult, RolloutRow, RolloutSpec, Usage
from harnesspro.evaluation.heldout import final_report, normalised_gain, pass_at_k
from harnesspro.evaluation.resolution import attempt_matrix, resolution_band
from harnesspro.evolution.improve import train_traces
from harnesspro.run.context import RunContext
from harnesspro.run.folder import RunFolder
from tests.conftest import tiny_config


def test_pass_at_k_by_hand() -> None:
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3)
    assert pass_at_k(3, 1, 3) == 1.0
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert pass_at_k(4, 0, 2) == 0.0
    assert pass_at_k(4, 4, 1) == 1.0
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)


def test_normalised_gain() -> None:
    assert normalised_gain(0.8, 0.6) == pytest.approx(0.5)
    assert normalised_gain(0.3, 0.6) == pytest.approx(-0.75)
    assert normalised_gain(0.6, 0.6) == 0.0
    assert normalised_gain(1.0, 1.0) is None


# Seed verdicts on 4 tasks x 6 attempts (attempts 0-2 score it, 3-5 re-score it).
SEED = {"t0": [1] * 6, "t1": [0] * 6, "t2": [1, 0, 0, 1, 1, 0], "t3": [0] * 6}


def brute_band(matrix: np.ndarray, k: int) -> float:
    """Median whole-split gap over every deal of 2k attempts into two halves, by definition."""
    gaps = []
    for first in itertools.combinations(range(2 * k), k):
        rest = [c for c in range(2 * k) if c not in first]
        gaps.append(abs(matrix[:, list(first)].mean() - matrix[:, rest].mean()))
    return float(np.median(gaps))


def test_resolution_band_by_hand() -> None:
    matrix = np.array(list(SEED.values()), dtype=float)
    band = resolution_band(matrix, 3)
    # Only t2 varies. A deal puts attempt 0 (a pass) with 2 of [0, 0, 1, 1, 0]: j of them
    # passes gives a t2 gap of |2j - 1| / 3, i.e. 1/3 in 9 of the 10 deals, 1 in the other;
    # over 4 tasks the whole-split gap is 1/12 in 9 deals.
    assert band.deals == 10
    assert band.whole_split == pytest.approx(1 / 12)
    assert band.whole_split == pytest.approx(brute_band(matrix, 3))
    # Attempts 0-2 vs 3-5: t2 is 1/3 vs 2/3, the rest agree, so the per-task median is 0.
    assert band.per_task == 0.0
    assert band.first_gap == pytest.approx(1 / 12)


def test_resolution_band_random_matrices_match_the_definition() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        matrix = (rng.random((5, 6)) < 0.5).astype(float)
        assert resolution_band(matrix, 3).whole_split == pytest.approx(brute_band(matrix, 3))


def ledger_frame() -> list[RolloutRow]:
    """Test-split rollouts of a seed and three operating points, plus rows that must not count."""
    outcomes = {
        "c000": SEED,
        "c005": {"t0": [1, 1, 1], "t1": [1, 0, 0], "t2": [1, 0, 0], "t3": [0, 0, 0]},
        "c007": {t: [0, 0, 0] for t in SEED},
        "c009": {"t0": [1, 1, 1, 0], "t1": [1, 1, 1], "t2": [1, 1, 0], "t3": [0, 0, 0]},
    }
    cost = {"c000": 0.02, "c005": 0.01, "c007": 0.015, "c009": 0.03}
    rows = [
        ("test", cid, task, attempt, "ok", verdict, cost[cid])
        for cid, tasks in outcomes.items()
        for task, verdicts in tasks.items()
        for attempt, verdict in enumerate(verdicts)
    ]
    rows += [
        ("validation", "c000", "t0", 0, "ok", 0, 9.0),  # another split
        ("test", "c009", "t3", 1, "infra_error", 0, 9.0),  # infrastructure fault
        ("test", "c009", "t9", 0, "ok", 0, 9.0),  # not one of the test tasks asked for
    ]
    frame = pd.DataFrame(
        rows,
        columns=["split", "candidate_id", "task_id", "attempt", "status", "official_pass", "cost"],
    )
    tokens = {"uncached_input": 100, "cached_input": 50, "cache_write": 0, "output": 10}
    return rows_of(frame.assign(**tokens, reasoning=0, latency_s=2.0))


def test_attempt_matrix() -> None:
    seed = [r for r in ledger_frame() if r.candidate_id == "c000" and r.split == "test"]
    np.testing.assert_array_equal(attempt_matrix(seed, 6), np.array(list(SEED.values())))


def test_final_report_on_a_hand_built_ledger() -> None:
    harnesses = [("seed", "c000"), ("lite", "c005"), ("medium", "c007"), ("heavy", "c009")]
    report = final_report(ledger_frame(), harnesses, ["t0", "t1", "t2", "t3"], 3, resamples=200)
    rows = {h.harness: h for h in report.harnesses}
    # E(seed) = (1 + 0 + 1/3 + 0) / 4 = 1/3; heavy = (1 + 1 + 2/3 + 0) / 4 = 2/3.
    assert rows["seed"].pass_rate == pytest.approx(1 / 3)
    assert rows["heavy"].pass_rate == pytest.approx(2 / 3)
    assert rows["heavy"].gain == pytest.approx(0.5)  # (2/3 - 1/3) / (1 - 1/3)
    assert rows["medium"].gain == pytest.approx(-0.5)
    assert rows["seed"].gain == 0.0
    # pass@3 per task is "any pass in 3": seed t0, t2 -> 0.5; heavy t0, t1, t2 -> 0.75.
    assert rows["seed"].pass_at_k == pytest.approx(0.5)
    assert rows["heavy"].pass_at_k == pytest.approx(0.75)
    # Attempt 3 of heavy (beyond K), its infra fault and the foreign task are left out.
    assert (rows["heavy"].rollouts, rows["heavy"].tasks) == (12, 4)
    assert rows["heavy"].cost_per_task == pytest.approx(0.03)
    assert rows["seed"].rollouts == 12  # attempts 3-5 only measure the band
    assert rows["seed"].tokens_per_task == 160 and rows["seed"].latency_s == 2.0
    # Band 1/12: lite is 1/12 above the seed (a tie), heavy above it, medium below.
    assert report.band.whole_split == pytest.approx(1 / 12)
    assert report.band_gain == pytest.approx((1 / 12) / (2 / 3))
    verdicts = {h.harness: h.versus_seed for h in report.harnesses}
    assert verdicts == {"seed": "seed", "lite": "tie", "medium": "worse", "heavy": "better"}
    lo, hi = rows["heavy"].pass_rate_ci
    assert lo <= rows["heavy"].pass_rate <= hi


def test_test_split_rollouts_never_reach_improvers(tmp_path: Path) -> None:
    config = load_config(tiny_config(tmp_path))
    ctx = RunContext.open(config, RunFolder(tmp_path / "run"), Console(quiet=True))
    planted = {
        "test": (ctx.splits.test[0], "CANARY-TEST-SPLIT"),
        "validation": (ctx.splits.validation[0], "CANARY-VALIDATION-SPLIT"),
        "coreset": (ctx.splits.coreset[0], "coreset trajectory"),
    }
    for split, (task_id, text) in planted.items():
        key = f"k-{split}"
        trajectory = json.dumps({"type": "model_call", "step": 1, "ts": 0, "content": text})
        result = RolloutResult(key, "ok", Usage(output=5), 0.01, 1.0, 1, False, trajectory, "", {})
        artifacts = ctx.run.save_rollout(result)
        ctx.ledger.record_rollout(RolloutSpec(key, "c000", task_id, 0, 0), result, artifacts, split)
    traces = train_traces(ctx, {"c000"})
    assert [t.key for t in traces] == ["k-coreset"]  # the control is returned...
    assert all("CANARY" not in t.trajectory for t in traces)  # ...the canaries never are
    splits = dict(ctx.ledger.rollouts()[["key", "split"]].itertuples(index=False))
    assert splits == {"k-test": "test", "k-validation": "validation", "k-coreset": "coreset"}


EVALUATION = {"validation_tasks": 2, "validation_rollouts": 1, "attempts": 2}


def rows(run_dir: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        return db.execute(sql).fetchall()


@pytest.fixture
def evaluated_run(finished_run: Path) -> Path:
    """The session's finished tiny run (conftest): its config is `EVALUATION`'s."""
    config = load_config(finished_run / "config.yaml")
    assert config.evaluation.model_dump(include=set(EVALUATION)) == EVALUATION
    return finished_run


@pytest.mark.slow
def test_evolve_ends_with_the_held_out_report(evaluated_run: Path) -> None:
    final = json.loads((evaluated_run / "reports" / "final.json").read_text())
    assert [h["harness"] for h in final["harnesses"]] == ["seed", "lite", "medium", "heavy"]
    assert final["attempts"] == 2 and final["band"]["deals"] == 3
    picks = rows(evaluated_run, "SELECT mode, candidate_id FROM selections WHERE epoch = 1")
    assert {h["harness"]: h["candidate_id"] for h in final["harnesses"][1:]} == dict(picks)
    # Test rollouts carry their split, have no synthesized verdict and 2K attempts for the seed.
    n_test = len(final["tasks"])
    seed_attempts = rows(
        evaluated_run,
        "SELECT count(*) FROM rollouts WHERE split = 'test' AND candidate_id = 'c000'",
    )
    assert seed_attempts == [(n_test * 4,)]
    assert rows(
        evaluated_run, "SELECT count(*) FROM rollouts WHERE split = 'test' AND pass IS NOT NULL"
    ) == [(0,)]
    csv = (evaluated_run / "reports" / "final.csv").read_text().splitlines()
    assert csv[0].startswith("harness,candidate_id") and len(csv) == 5


@pytest.mark.slow
def test_every_run_has_agreement_budget_and_intervals(evaluated_run: Path) -> None:
    agreement = json.loads((evaluated_run / "reports" / "agreement.json").read_text())
    assert agreement["all"]["rollouts"] == sum(
        agreement[s]["rollouts"] for s in ("coreset", "validation")
    )
    search = rows(evaluated_run, "SELECT count(*) FROM rollouts WHERE split != 'test'")[0][0]
    spent = json.loads((evaluated_run / "reports" / "budget.json").read_text())
    assert spent["search"][0] == {"name": "rollouts", "cap": None, "spent": search}
    front = pd.read_csv(evaluated_run / "reports" / "epoch-1" / "front.csv")
    assert (front["pass_lo"] <= front["pass_rate"]).all() and (
        front["pass_rate"] <= front["pass_hi"]
    ).all()
    assert front["p_nondominated"].between(0, 1).all()
    validated = front[front["val_rollouts"] > 0]["candidate"]
    picked = {c for (c,) in rows(evaluated_run, "SELECT candidate_id FROM selections")}
    assert set(validated) == picked  # only the selected candidates see the validation split
    html = (evaluated_run / "reports" / "epoch-1" / "pareto.html").read_text()
    assert "P(non-dominated)" in html and "90% CI" in html


@pytest.mark.slow
def test_eval_command_reuses_finished_rollouts(
    evaluated_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"  # a copy: the shared run stays read-only
    shutil.copytree(evaluated_run, run_dir, symlinks=True)
    before = rows(run_dir, "SELECT count(*) FROM rollouts")
    assert main(["eval", str(run_dir), "--attempts", "2"]) == 0
    assert rows(run_dir, "SELECT count(*) FROM rollouts") == before
    out = capsys.readouterr().out
    assert "resolution band" in out and "pass@2" in out and "failure recall" in out


def test_eval_command_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err
    assert main(["eval", str(tmp_path), "--attempts", "0"]) == 2
    assert "K must be from 1 to 100" in capsys.readouterr().err


@pytest.mark.slow
def test_rollout_cap_stops_the_search_gracefully(tmp_path: Path, ray_session: None) -> None:
    # Seed: 3 coreset tasks x G 2 = 6, plus 2 validation tasks x G 2 (the seed gets G there:
    # its rollouts write the validation tests) = 10; a child needs 6 more. A cap of 16 fits
    # one child of epoch 1, none of the others, no validation of the picks and no epoch 2.
    evaluation = {**EVALUATION, "final": False, "max_rollouts": 16}
    config = tiny_config(
        tmp_path, evaluation=evaluation, evolution={"epochs": 2, "rollouts_per_task": 2}
    )
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    per_candidate = rows(
        run_dir, "SELECT candidate_id, count(*) FROM rollouts WHERE split = 'coreset' GROUP BY 1"
    )
    assert [n for _, n in per_candidate] == [6, 6]  # whole candidates only
    spent = json.loads((run_dir / "reports" / "budget.json").read_text())
    assert spent["search"][0] == {"name": "rollouts", "cap": 16, "spent": 16}
    assert "max_rollouts (16) reached in epoch 1" in spent["stopped"]
    assert [e for (e,) in rows(run_dir, "SELECT epoch FROM epochs")] == [0, 1]
    assert (run_dir / "reports" / "epoch-1" / "front.csv").exists()
    assert not (run_dir / "reports" / "final.json").exists()  # evaluation.final: false
    # Resuming does not start epoch 2 or spend anything.
    before = rows(run_dir, "SELECT count(*) FROM rollouts")
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    assert rows(run_dir, "SELECT count(*) FROM rollouts") == before


def test_rollout_cap_below_the_seed_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tiny_config(tmp_path, evaluation={"max_rollouts": 5})
    assert main(["evolve", "--config", str(config), "--run-dir", str(tmp_path / "run")]) == 2
    assert (
        "evaluation.max_rollouts (5) is below the seed's coreset evaluation (6"
        in capsys.readouterr().err
    )
