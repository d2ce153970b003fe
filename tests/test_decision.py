"""The decision report's tables (pass@k / pass^k, strata, regressions, usage, optimism,
search cost vs gain) against hand-worked cases, and on a finished tiny run."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from itertools import combinations
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from harnesspro.cli.results import cmd_report_paths
from harnesspro.core.records import Score
from harnesspro.reports import choice, frames, lever_effects, optimism, passk, strata, usage
from harnesspro.reports.dashboard import render, with_choices
from harnesspro.reports.decision import chosen_on, decision_report
from harnesspro.reports.decision_view import decision_html, decision_lines
from harnesspro.reports.rundata import load_run
from harnesspro.run.operating_points import load_operating_points

SEED, POINT = ("seed", "c000"), ("lite", "c001")


def _frame(outcomes: dict[str, dict[str, list[int]]]) -> pd.DataFrame:
    """candidate -> task -> pass per attempt, as scored held-out rollouts."""
    rows = [
        {"candidate_id": cid, "task_id": t, "attempt": a, "official_pass": p, "cost": 0.5,
         "key": f"{cid}-{t}-{a}"}
        for cid, tasks in outcomes.items() for t, passes in tasks.items()
        for a, p in enumerate(passes)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _brute(passes: list[int], k: int, every: bool) -> float:
    """Over every k-subset of the attempts: the share where any (every) attempt passes."""
    subsets = list(combinations(passes, k))
    hit = [all(s) if every else any(s) for s in subsets]
    return sum(hit) / len(subsets)


@pytest.mark.parametrize("passes", [[0, 0, 0, 0], [1, 0, 0, 1, 0], [1, 1, 1], [0, 1, 1, 1, 0, 1]])
def test_pass_at_k_and_pass_all_k_match_enumerating_k_subsets(passes: list[int]) -> None:
    frame = _frame({"c000": {"t": passes}})
    curves = passk.curves(frame, [SEED]).set_index("k")
    assert list(curves.index) == list(range(1, len(passes) + 1))
    for k in curves.index:
        assert curves.loc[k, "pass_at_k"] == pytest.approx(_brute(passes, k, every=False))
        assert curves.loc[k, "pass_all_k"] == pytest.approx(_brute(passes, k, every=True))


def test_curves_average_over_tasks_up_to_the_fewest_attempts() -> None:
    frame = _frame({"c000": {"a": [1, 0, 0], "b": [1, 1]}})
    curves = passk.curves(frame, [SEED]).set_index("k")
    assert list(curves.index) == [1, 2]
    assert curves.loc[1, "pass_at_k"] == pytest.approx((1 / 3 + 1) / 2)
    assert curves.loc[2, "pass_all_k"] == pytest.approx((0 + 1) / 2)


def test_strata_follow_the_seeds_pass_rate_and_regressions_are_solved_tasks_lost() -> None:
    seed = {"h": [0, 0, 0, 0], "m": [1, 0, 0, 0], "e": [1, 1, 0, 1], "s": [1, 1, 1, 1]}
    point = {"h": [1, 0, 0, 0], "m": [1, 1, 0, 0], "e": [1, 1, 1, 1], "s": [1, 0, 1, 1]}
    frame = _frame({"c000": seed, "c001": point})
    table = strata.by_stratum(frame, [SEED, POINT], "c000")
    mine = table[table["candidate"] == "c001"].set_index("stratum")["pass_rate"].to_dict()
    assert mine == {"hard": 0.25, "medium": 0.5, "easy": 1.0, "already solved": 0.75}
    lost = strata.regressions(frame, [SEED, POINT], "c000")
    assert lost[["candidate", "task", "pass_rate"]].values.tolist() == [["c001", "s", 0.75]]


def test_usage_counts_tool_calls_errors_and_cost_per_solved_task(tmp_path: Path) -> None:
    lines = [
        {"type": "tool_call", "command": "ls"},
        {"type": "tool_result", "output": "a.txt"},
        {"type": "tool_call", "command": "frob"},
        {"type": "tool_result", "output": "bash: frob: command not found"},
        {"type": "tool_call", "command": "false"},
        {"type": "tool_result", "output": "(no output, exit code 1)"},
    ]
    text = "\n".join(json.dumps(e) for e in lines) + "\n{torn"
    assert usage.tool_counts(text) == (3, 2)
    assert usage.tool_counts('{"type": "tool_result", "output": "(no output, exit code 0)"}') == (
        0,
        0,
    )
    frame = _frame({"c000": {"t": [1, 0, 0, 1]}})
    for key in frame["key"]:
        (tmp_path / "rollouts" / key).mkdir(parents=True)
        (tmp_path / "rollouts" / key / "trajectory.jsonl").write_text(text)
    table = usage.usage(usage.load_tool_counts(tmp_path, frame), [SEED]).iloc[0]
    assert table["cost_per_solved"] == pytest.approx(4 * 0.5 / 2)
    assert table["tool_calls_per_task"] == 3
    assert table["tool_error_rate"] == pytest.approx(2 / 3)
    none = usage.usage(usage.load_tool_counts(tmp_path, frame.assign(official_pass=0)), [SEED])
    assert math.isinf(none.iloc[0]["cost_per_solved"])


def test_optimism_and_search_cost_per_point_of_gain() -> None:
    held = [
        {"harness": "seed", "candidate_id": "c000", "pass_rate": 0.5, "gain": None},
        {"harness": "lite", "candidate_id": "c001", "pass_rate": 0.6, "gain": 0.2},
        {"harness": "heavy", "candidate_id": "c002", "pass_rate": 0.4, "gain": -0.2},
    ]
    coreset = {c: Score(c, p, 1.0, 10, 8) for c, p in (("c000", 0.5), ("c001", 0.8))}
    table = optimism.optimism(held, {"c001": 0.7}, coreset).set_index("candidate")
    assert table.loc["c001", "optimism"] == pytest.approx(0.2)
    assert table.loc["c001", "chosen_on_pass"] == 0.7
    assert math.isnan(table.loc["c002", "coreset_pass"])
    rollouts = pd.DataFrame({"split": ["coreset", "test", None], "cost": [2.0, 100.0, 1.0]})
    calls = pd.DataFrame({"cost": [1.0]})
    spend = optimism.search_spend(rollouts, calls)
    assert spend == (3.0, 1.0)
    gain = optimism.search_gain(held, spend).set_index("candidate")
    assert gain.loc["c001", "gain_points"] == pytest.approx(10)
    assert gain.loc["c001", "dollars_per_point"] == pytest.approx(0.4)
    assert math.isnan(gain.loc["c002", "dollars_per_point"])


def test_a_finished_run_has_the_decision_report(finished_tiny_run: Path) -> None:
    written = json.loads((finished_tiny_run / "reports" / "decision.json").read_text())
    assert {"pass_curves", "strata", "regressions", "usage", "optimism", "search_gain"} <= set(
        written
    )
    report = decision_report(load_run(finished_tiny_run))
    assert report is not None
    labels = set(report.usage["harness"])
    assert "seed" in labels and labels <= {"seed", "lite", "medium", "heavy"}
    assert set(report.curves["k"]) == set(range(1, report.attempts + 1))
    text = "\n".join(decision_lines(report))
    assert "pass@1" in text and "per solved task" in text and "optimism" in text
    assert 'id="decision-usage"' in decision_html(report)
    assert "Deciding from the held-out" in (finished_tiny_run / "dashboard.html").read_text()


def test_a_point_chosen_on_shrunk_estimates_says_who_dominates_it_on_raw_ones() -> None:
    # raw: c002 (0.9, $2) dominates c001 (0.8, $2); shrunk: c001 (0.85, $1.5) beats c002 on cost
    raw = {"c000": (0.5, 1.0), "c001": (0.8, 2.0), "c002": (0.9, 2.0)}
    shrunk = {"c000": (0.5, 1.0), "c001": (0.85, 1.5), "c002": (0.86, 2.0)}
    (lite,) = choice.point_choices({"lite": "c001"}, raw, shrunk, {"lite": (0.2, 0.8)})
    assert lite.estimates == "shrunk"
    assert lite.dominated_raw == ("c002",) and lite.dominated_chosen == ()
    assert "dominated by c002" in lite.why and "shrunk estimates (pass 85.0%" in lite.why
    assert "raw 80.0%, $2.0000/task" in lite.why
    (plain,) = choice.point_choices({"heavy": "c002"}, raw, {}, {})
    assert plain.estimates == "raw" and plain.why.endswith("on the raw front too")
    assert choice.dominators(raw, "c000") == ()


def test_the_console_shows_mechanisms_in_full_and_why_each_point_was_chosen(
    finished_tiny_run: Path,
) -> None:
    console = Console(width=80, record=True, soft_wrap=True)
    assert cmd_report_paths(finished_tiny_run, console) == 0
    text = console.export_text()
    assert "…" not in text
    cells = [line.split("│")[3] for line in text.splitlines() if line.startswith("│")]
    column = "".join(cells).replace(" ", "")  # the mechanisms column, unwrapped
    for point in load_operating_points(finished_tiny_run):
        assert f"{point.mode} {point.candidate}: chosen on" in text
        assert point.mechanisms in column


def test_the_dashboard_never_labels_a_chosen_point_bare_dominated(finished_tiny_run: Path) -> None:
    data = load_run(finished_tiny_run)
    front = frames.fronts(data)
    picks = frames.choices(data, front)
    marked = with_choices(front, picks)
    last = marked[marked["view_epoch"] == marked["view_epoch"].max()]
    assert set(last[last["chosen"] != ""]["candidate"]) == {c.candidate for c in picks}
    html = render(data)
    assert 'id="choices"' in html and "chosen on" in html


def test_lever_effects_come_from_the_surrogate_with_intervals(finished_tiny_run: Path) -> None:
    data = load_run(finished_tiny_run)
    effects = frames.lever_effect_table(data)
    assert not effects.empty
    assert (effects["pass_lo"] <= effects["pass_effect"]).all()
    assert (effects["pass_effect"] <= effects["pass_hi"]).all()
    assert (effects["cost_lo"] <= effects["cost_hi"]).all()
    written = pd.read_csv(finished_tiny_run / "reports" / "lever_effects.csv")
    assert list(written["feature"]) == list(effects["feature"])
    assert 'id="lever-effects"' in render(data)


@pytest.mark.parametrize(
    ("lo", "hi", "c_lo", "c_hi", "expected"),
    [(0.01, 0.2, -0.5, -0.1, "helped, cheaper"), (-0.2, -0.01, -0.1, 0.1, "hurt"),
     (-0.1, 0.1, 0.1, 0.3, "unclear, dearer")],
)  # fmt: skip
def test_a_lever_reads_helped_or_hurt_only_when_its_interval_excludes_zero(
    lo: float, hi: float, c_lo: float, c_hi: float, expected: str
) -> None:
    assert lever_effects.reading(lo, hi, c_lo, c_hi) == expected


def test_optimism_compares_the_shrunk_estimate_a_point_was_chosen_on(
    finished_tiny_run: Path,
) -> None:
    data = load_run(finished_tiny_run)
    last = data.selections[data.selections["epoch"] == data.selections["epoch"].max()]
    raw = {str(c): float(p) for c, p in zip(last["candidate_id"], last["pass_rate"], strict=True)}
    assert chosen_on(data) == raw  # this run chose on raw estimates (no reports/shrunk.csv)
    shrunk = pd.DataFrame(
        {"candidate_id": list(raw), "raw_pass_rate": list(raw.values()),
         "raw_cost_per_task": 1.0, "shrunk_pass_rate": 0.42, "shrunk_cost_per_task": 1.0}
    )  # fmt: skip
    assert set(chosen_on(replace(data, shrunk=shrunk)).values()) == {0.42}
