"""Infrastructure errors never inflate a pass rate: a candidate with one where a rollout should
be is incomplete, left out of selection and of `eval`'s figures with the count shown, and no
task drops out of `eval` silently. Hand-worked numbers throughout."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from harnesspro.core.config import load_config
from harnesspro.core.ledger import rows_of
from harnesspro.core.metrics import Shortfall, shortfalls
from harnesspro.core.records import Candidate, RolloutResult, RolloutRow, RolloutSpec, Usage
from harnesspro.evaluation.heldout import final_report
from harnesspro.evolution.epoch import shortfall_lines
from harnesspro.evolution.select_step import select_epoch
from harnesspro.reports.final import incomplete_line
from harnesspro.run.context import RunContext
from harnesspro.run.folder import RunFolder
from tests.conftest import tiny_config

# Coreset outcomes per candidate: one verdict per (task index, attempt); "infra" is an
# infrastructure error in that place, a missing key a rollout never run (a budget cap).
OUTCOMES: dict[str, dict[tuple[int, int], int | str]] = {
    "c000": {(0, 0): 1, (0, 1): 0, (1, 0): 1, (1, 1): 0, (2, 0): 0, (2, 1): 0},
    # 4 passes, 1 failure and 1 infrastructure error: 4/5 = 80% if the fault were dropped.
    "c001": {(0, 0): 1, (0, 1): 1, (1, 0): 1, (1, 1): 1, (2, 0): 0, (2, 1): "infra"},
    "c002": {(0, 0): 1, (0, 1): 0, (1, 0): 1, (1, 1): 1, (2, 0): 0, (2, 1): 0},
    "c003": {(0, 0): 1, (0, 1): 1, (1, 0): 1, (1, 1): 1, (2, 0): 1},  # (2, 1) never ran
}


def recorded_run(folder: Path, outcomes: dict[str, dict[tuple[int, int], int | str]]) -> RunContext:
    config = load_config(tiny_config(folder))  # 3 coreset tasks, G = 2
    ctx = RunContext.open(config, RunFolder(folder / "run"), Console(quiet=True, width=400))
    verdicts = {}
    for cid, cells in outcomes.items():
        ctx.ledger.add_candidate(
            Candidate(cid, f"commit-{cid}", f"tree-{cid}", None, None, None, 0)
        )
        for (t, attempt), verdict in cells.items():
            key = f"{cid}-{t}-{attempt}"
            status = "infra_error" if verdict == "infra" else "ok"
            result = RolloutResult(key, status, Usage(output=10), 0.01, 1.0, 1, None, "", "", {})
            spec = RolloutSpec(key, cid, ctx.splits.coreset[t], attempt, 0)
            ctx.ledger.record_rollout(spec, result, "", "coreset")
            if verdict != "infra":
                verdicts[key] = bool(verdict)
    ctx.ledger.set_passes(verdicts)
    return ctx


def test_a_candidate_with_an_infra_error_is_incomplete_and_never_selected(
    tmp_path: Path,
) -> None:
    ctx = recorded_run(tmp_path, OUTCOMES)
    assert ctx.shortfalls() == {
        "c001": Shortfall("c001", missing=1, infra=1, wanted=6),
        "c003": Shortfall("c003", missing=1, infra=0, wanted=6),
    }
    assert ctx.incomplete() == ["c001", "c003"]
    scores = ctx.scores()
    assert set(scores) == {"c000", "c002"}
    assert scores["c000"].pass_rate == pytest.approx(2 / 6)
    assert scores["c002"].pass_rate == pytest.approx(3 / 6)
    selected = select_epoch(ctx, 0)
    assert set(selected.picks.values()) == {"c002"}  # c001's 80% on five never competes
    assert shortfall_lines(ctx) == [
        "  incomplete (missing coreset task x attempts: a budget cap cut them short or "
        "infrastructure errors took them; not compared): c001 (1 of 6 missing, 1 an "
        "infrastructure error), c003 (1 of 6 missing)"
    ]


def test_the_seed_with_an_infra_error_stays_the_reference_and_is_named(tmp_path: Path) -> None:
    seed = dict(OUTCOMES["c000"])
    seed[(2, 1)] = "infra"
    ctx = recorded_run(tmp_path, {"c000": seed, "c002": OUTCOMES["c002"]})
    assert ctx.incomplete() == []
    assert ctx.scores()["c000"].pass_rate == pytest.approx(2 / 5)
    assert shortfall_lines(ctx) == [
        "  the seed misses coreset rollouts: c000 (1 of 6 missing, 1 an infrastructure "
        "error); it stays the reference, scored on the rest"
    ]


def test_shortfalls_count_infra_rows_as_missing_but_not_a_retried_one() -> None:
    rows = [
        ("c1", "a", 0, "infra_error"),  # retried: the ok row below fills the place
        ("c1", "a", 0, "ok"),
        ("c1", "a", 1, "infra_error"),
        ("c1", "b", 0, "timeout"),  # the harness's failure: present
        ("c1", "z", 0, "ok"),  # not a task asked for
    ]
    frame = pd.DataFrame(rows, columns=["candidate_id", "task_id", "attempt", "status"])
    found = shortfalls(rows_of(frame), ["c1", "c2"], ["a", "b"], range(2))
    # Wanted 2 tasks x 2 attempts = 4; c1 has (a,0) and (b,0): (a,1) infra, (b,1) never ran.
    assert found == {"c1": Shortfall("c1", 2, 1, 4), "c2": Shortfall("c2", 4, 0, 4)}


TASKS = [f"t{i}" for i in range(4)]


def held_out_rows(cells: dict[str, dict[str, list[int | str]]]) -> list[RolloutRow]:
    """Test-split rows: per candidate and task, one official verdict per attempt ("infra":
    an infrastructure error, no verdict)."""
    rows = [
        (cid, task, attempt, "infra_error" if v == "infra" else "ok", None if v == "infra" else v)
        for cid, tasks in cells.items()
        for task, verdicts in tasks.items()
        for attempt, v in enumerate(verdicts)
    ]
    columns = ["candidate_id", "task_id", "attempt", "status", "official_pass"]
    frame = pd.DataFrame(rows, columns=columns).assign(split="test", cost=0.01, latency_s=1.0)
    tokens = {"uncached_input": 100, "cached_input": 0, "cache_write": 0, "output": 10}
    return rows_of(frame.assign(**tokens, reasoning=0, key=[f"k{i}" for i in range(len(frame))]))


SEED = {"t0": [1, 1, 1, 1], "t1": [0, 0, 0, 0], "t2": [1, 0, 1, 0], "t3": [0, 0, 0, 0]}
HARNESSES = [("seed", "c000"), ("lite", "c005"), ("heavy", "c009")]


def test_eval_reports_an_incomplete_harness_with_its_count_not_a_partial_rate() -> None:
    frame = held_out_rows(
        {
            "c000": SEED,
            # t3 never came back: before, lite scored (1 + 1/2 + 1/2) / 3 = 2/3 on three tasks.
            "c005": {"t0": [1, 1], "t1": [1, 0], "t2": [0, 1]},
            # its one failure turned into an infrastructure error: 7/7 before.
            "c009": {"t0": [1, 1], "t1": [1, 1], "t2": [1, 1], "t3": [1, "infra"]},
        }
    )
    report = final_report(frame, HARNESSES, TASKS, 2, resamples=50)
    rows = {h.harness: h for h in report.harnesses}
    # The seed is complete: E = (1 + 0 + 1/2 + 0) / 4 = 3/8 on attempts 0-1.
    assert rows["seed"].pass_rate == pytest.approx(3 / 8) and rows["seed"].missing == 0
    for label, missing, tasks in (("lite", 2, 3), ("heavy", 1, 4)):
        h = rows[label]
        assert (h.versus_seed, h.missing, h.tasks) == ("incomplete", missing, tasks)
        assert math.isnan(h.pass_rate) and math.isnan(h.pass_at_k) and h.gain is None
    assert report.incomplete == (Shortfall("c005", 2, 0, 8), Shortfall("c009", 1, 1, 8))
    assert incomplete_line(report) == (
        "incomplete, left out of the figures (test task x attempts without an official "
        "verdict): lite c005 (2 of 8 missing); heavy c009 (1 of 8 missing, 1 an "
        "infrastructure error)"
    )


def test_eval_of_a_sabotaging_seed_reports_the_share_of_attempts_passed() -> None:
    # 10 tasks x K = 2: 11 of the 20 attempts passed, the 9 it sabotaged are its failures
    # (a timeout or harness error now, never an infrastructure error): 11/20 = 55%.
    main = [(1, 1)] * 3 + [(1, 0)] * 5 + [(0, 0)] * 2
    seed = {f"s{i}": [*pair, *pair] for i, pair in enumerate(main)}
    report = final_report(held_out_rows({"c000": seed}), [("seed", "c000")], list(seed), 2)
    assert report.harnesses[0].pass_rate == pytest.approx(11 / 20)
    assert report.harnesses[0].tasks == 10 and report.incomplete == ()
    # The same seed with one laundered failure: incomplete, its count shown, no 11/19.
    seed["s9"] = [0, "infra", 0, 0]
    report = final_report(held_out_rows({"c000": seed}), [("seed", "c000")], list(seed), 2)
    assert report.harnesses[0].versus_seed == "incomplete"
    assert math.isnan(report.harnesses[0].pass_rate)
    assert report.incomplete == (Shortfall("c000", 1, 1, 40),)  # the seed's 2K = 4 attempts


def test_an_incomplete_seed_leaves_every_comparison_unknown() -> None:
    seed = {**SEED, "t2": [1, 0, 1, "infra"]}  # a band attempt (K..2K-1) is missing
    lite = {t: [1, 1] for t in TASKS}
    report = final_report(held_out_rows({"c000": seed, "c005": lite}), HARNESSES[:2], TASKS, 2)
    rows = {h.harness: h for h in report.harnesses}
    assert rows["seed"].versus_seed == "incomplete" and rows["seed"].missing == 1
    assert rows["lite"].pass_rate == 1.0  # its own figures stand
    assert (rows["lite"].gain, rows["lite"].versus_seed) == (None, "unknown")
    assert math.isnan(report.band.whole_split) and report.band_gain is None
