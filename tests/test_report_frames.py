"""The reports' prepared frames as pure data (no plotly), against hand-worked cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.core.money import dollars, relative
from harnesspro.core.records import Candidate, Score
from harnesspro.reports import levers, rollout_frames
from harnesspro.reports.budget import budget_report, write_budget
from harnesspro.reports.costs import epoch_costs, run_costs, write_csv
from harnesspro.reports.pareto_plot import front_frame

NAN = float("nan")


def _cand(cid: str, epoch: int, parent: str | None = "c000") -> Candidate:
    return Candidate(cid, "sha", "tree", parent, "balanced", "m", epoch)


def _scores(**points: tuple[float, float, float]) -> dict[str, Score]:
    return {cid: Score(cid, pr, cost, tokens, 4) for cid, (pr, cost, tokens) in points.items()}


def test_front_roles_modes_and_seed() -> None:
    # seed (0.5, $1); a (0.7, $2) and the seed are the front; b is below the seed's pass rate;
    # c (0.6, $2.5) is dominated by a.
    scores = _scores(c000=(0.5, 1.0, 100), a=(0.7, 2.0, 200), b=(0.4, 0.5, 50), c=(0.6, 2.5, 250))
    candidates = {"c000": _cand("c000", 0, None), **{k: _cand(k, 1) for k in "abc"}}
    picks = {"heavy": "a", "lite": "c000", "medium": "a"}
    frame = front_frame(scores, candidates, picks, "c000").set_index("candidate")
    assert frame["role"].to_dict() == {
        "a": "survivor",
        "b": "below seed",
        "c": "dominated",
        "c000": "survivor",
    }
    assert frame.loc["a", "modes"] == "medium/heavy" and frame.loc["c000", "modes"] == "lite"
    assert frame["seed"].to_dict() == {"a": False, "b": False, "c": False, "c000": True}
    assert (frame["axis"] == "dollars").all() and frame.loc["c", "x"] == 2.5


def test_unknown_cost_switches_every_point_to_tokens() -> None:
    scores = _scores(c000=(0.5, NAN, 100.0), a=(0.7, NAN, 80.0))
    candidates = {"c000": _cand("c000", 0, None), "a": _cand("a", 1)}
    frame = front_frame(scores, candidates, {}, "c000").set_index("candidate")
    assert (frame["axis"] == "tokens").all()
    assert frame["x"].to_dict() == {"a": 80.0, "c000": 100.0}
    # a passes more at fewer tokens: the seed is dominated.
    assert frame["role"].to_dict() == {"a": "survivor", "c000": "dominated"}


def test_money_never_prints_zero_for_unknown() -> None:
    assert dollars(NAN) == dollars(None) == "unknown $"
    assert relative(NAN) == "unknown" and relative(0.125) == "+12.5%"


def _rollouts() -> pd.DataFrame:
    rows = [
        # candidate, task, epoch, split, status, cost, uncached, cached, output
        ("c000", "t1", 0, "coreset", "ok", 1.0, 10, 5, 1),
        ("c000", "t1", 0, "coreset", "ok", 3.0, 10, 5, 1),
        ("c000", "t2", 0, "coreset", "ok", 2.0, 10, 5, 1),
        ("c000", "v1", 0, "validation", "ok", 4.0, 10, 5, 1),
        ("c001", "t1", 1, "coreset", "ok", 0.5, 1, 1, 1),
        ("c001", "t2", 1, "coreset", "infra_error", 9.0, 1, 1, 1),
        ("c001", "x1", 1, "test", "ok", 7.0, 1, 1, 1),
    ]
    cols = ["candidate_id", "task_id", "epoch", "split", "status", "cost"]
    frame = pd.DataFrame(
        [r[:6] for r in rows],
        columns=cols,
    )
    frame["uncached_input"] = [r[6] for r in rows]
    frame["cached_input"] = [r[7] for r in rows]
    frame["output"] = [r[8] for r in rows]
    frame["cache_write"] = 0
    frame["reasoning"] = 0
    return frame


def test_epoch_costs_totals_by_hand() -> None:
    table = epoch_costs(_rollouts(), 1, "c000").set_index("scope")
    # Epoch 1 counts c001's one ok coreset rollout ($0.5); the infra fault is listed, not
    # counted; the test-split rollout is outside the search.
    assert table.loc["epoch total", "dollars"] == 0.5
    assert table.loc["epoch total", "infra_errors"] == 1
    # Running total: epoch 0's 1 + 3 + 2 + 4 and epoch 1's 0.5.
    assert table.loc["running total", "dollars"] == pytest.approx(10.5)
    seed = table.loc["seed baseline"]
    assert seed["dollars"] == 6.0 and seed["rollouts"] == 3 and seed["tasks"] == 2
    assert seed["dollars_per_rollout"] == 2.0 and seed["dollars_per_task"] == 3.0


def test_run_costs_totals_and_unknown(tmp_path: Path) -> None:
    rollouts = _rollouts()
    calls = pd.DataFrame(
        {"epoch": [1], "cost": [0.25], "uncached_input": [3], "cached_input": [0]}
        | {"cache_write": [0], "output": [2], "reasoning": [0]}
    )
    table = run_costs(rollouts, calls)
    total = table[table["epoch"] == "total"].iloc[0]
    # Every rollout was billed, infra faults and the held-out evaluation too, plus the call.
    assert total["dollars"] == pytest.approx(1 + 3 + 2 + 4 + 0.5 + 9 + 7 + 0.25)
    assert list(table["account"][:-1]) == ["target", "target", "search", "held-out evaluation"]
    unknown = rollouts.assign(cost=[1.0, None, 2.0, 4.0, 0.5, 9.0, 7.0])
    table = run_costs(unknown, calls.iloc[0:0])
    assert math.isnan(table["dollars"].iloc[0]) and table["dollars"].iloc[1] == 9.5
    assert table["cumulative_dollars"].isna().all()  # unknown from the first row on
    path = write_csv(table, tmp_path / "costs.csv")
    written = pd.read_csv(path, dtype=str)
    assert written["dollars"].iloc[0] == "unknown" and "0" not in set(written["dollars"])


def test_budget_json_has_epochs_and_no_nan(tmp_path: Path) -> None:
    rollouts = _rollouts().assign(cost=None)
    report = budget_report(rollouts, None, None, None)
    path = write_budget(report, tmp_path)
    data = json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert data["search"][1] == {"name": "target_dollars", "cap": None, "spent": None}
    assert [e["epoch"] for e in data["epochs"]] == [0, 1]
    assert data["epochs"][1]["cumulative_rollouts"] == 4 + 2
    assert data["epochs"][0]["target_dollars"] is None


def test_lever_and_latency_frames_for_the_dashboard() -> None:
    plans = pd.DataFrame(
        [
            # child, mechanism (its catalog lever), levers named by a free plan, verdict
            ("c001", "concise_prompt", "[]", "helped"),
            ("c002", "free_edit", json.dumps(["prompt", "step cap"]), "hurt"),
            ("c003", "compress_output", "[]", None),
        ],
        columns=["child_id", "mechanism", "levers", "verdict"],
    )
    tried = levers.with_untried(levers.lever_coverage(plans)).set_index("lever")
    # prompt: c001 helped + c002 hurt; step cap: c002; context management: c003 unmeasured.
    assert tried.loc["prompt", ["tried", "helped", "hurt"]].tolist() == [2, 1, 1]
    assert tried.loc["context management", ["tried", "unmeasured"]].tolist() == [1, 1]
    # Every lever of the list shows, the five never tried with 0: 3 of 8 were tried.
    assert len(tried) == 8 and (tried["tried"] > 0).sum() == 3
    assert tried.loc["reasoning effort"].sum() == 0
    rollouts = pd.DataFrame(
        [
            ("c000", "t1", 1.0, 0.04, 30.0, "ok"),
            ("c000", "t2", 0.0, 0.02, 10.0, "ok"),
            ("c001", "t1", 1.0, 0.01, 6.0, "ok"),
            ("c001", "t2", 1.0, 0.01, 4.0, "ok"),
            ("c001", "t2", 1.0, 0.01, 500.0, "infra_error"),  # never in a score
            ("c003", "t1", 1.0, None, 8.0, "ok"),  # unpriced: cost unknown
        ],
        columns=["candidate_id", "task_id", "pass", "cost", "latency_s", "status"],
    ).assign(split="coreset")
    table = levers.latency_with_verdicts(rollouts, plans, ["t1", "t2"]).set_index("candidate_id")
    assert table.loc["c000", ["pass_rate", "latency_s", "change", "verdict"]].tolist() == [
        0.5, 20.0, "—", "unmeasured",
    ]  # fmt: skip
    assert table.loc["c000", "cost_per_task"] == pytest.approx(0.03)
    assert table.loc["c001", ["latency_s", "verdict"]].tolist() == [5.0, "helped"]
    assert math.isnan(table.loc["c003", "cost_per_task"])
    merge = {"child_id": "c004", "mechanism": "compress_output", "levers": "[]",
             "verdict": "no effect", "note": "composer: merge of c001 + c003"}  # fmt: skip
    more = rollouts.assign(candidate_id=rollouts["candidate_id"].replace("c000", "c004"))
    merged = levers.latency_with_verdicts(more, pd.concat([plans, pd.DataFrame([merge])]), ["t1"])
    assert merged.set_index("candidate_id").loc["c004", "change"] == (
        "compress_output (composer merge)"
    )


def test_report_filters_follow_the_search_rules_worked_by_hand() -> None:
    # a: coreset ok; b: an infrastructure fault; c: held out, judged; d: held out, no
    # verdict; e: a ledger from before splits (NULL split: coreset); f: another task.
    frame = pd.DataFrame(
        {
            "key": list("abcdef"), "candidate_id": ["c001"] * 6,
            "task_id": ["t1", "t1", "t1", "t1", "t1", "t2"],
            "split": ["coreset", "coreset", "test", "test", None, "coreset"],
            "status": ["ok", "infra_error", "ok", "ok", "ok", "ok"],
            "official_pass": [None, None, 1, None, None, None], "extra": range(6),
        }
    )  # fmt: skip
    assert list(rollout_frames.scored(frame, ["t1"])["key"]) == ["a", "c", "d", "e"]
    assert list(rollout_frames.on_split(frame, "coreset")["key"]) == ["a", "b", "e", "f"]
    assert list(rollout_frames.search_rollouts(frame)["key"]) == ["a", "b", "e", "f"]
    held = rollout_frames.held_out_frame(frame, ["t1"])
    assert list(held["key"]) == ["c"] and list(held["extra"]) == [2]  # every column kept
    assert rollout_frames.scored(frame.iloc[:0], ["t1"]).columns.tolist() == frame.columns.tolist()
