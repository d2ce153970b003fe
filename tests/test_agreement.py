"""Agreement of the synthesized tests with the official tests (failure = positive class)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.reports.agreement import (
    agreement,
    agreement_by_split,
    describe,
    load_lines,
    write_agreement,
)

pytestmark = pytest.mark.slow  # a run per module fixture (scheduled first)

# Hand-labelled set of 10 rollouts, (synthesized verdict, official verdict), True = pass:
#   both fail: #0 #1 #2          -> TP = 3
#   synthesized fails only: #3   -> FP = 1
#   official fails only: #4 #5   -> FN = 2
#   both pass: #6..#9            -> TN = 4
SYNTH = [False, False, False, False, True, True, True, True, True, True]
OFFICIAL = [False, False, False, True, False, False, True, True, True, True]


def test_hand_labelled_confusion_and_rates() -> None:
    a = agreement(SYNTH, OFFICIAL)
    assert (a.both_fail, a.synth_only_fail, a.official_only_fail, a.both_pass) == (3, 1, 2, 4)
    assert a.rollouts == 10
    assert a.failure_recall == pytest.approx(3 / 5)  # TP / (TP + FN)
    assert a.failure_precision == pytest.approx(3 / 4)  # TP / (TP + FP)
    assert a.accuracy == pytest.approx(7 / 10)


def test_the_runs_report_counts_its_own_rollouts(finished_run: Path) -> None:
    """reports/agreement.json of a real run equals the confusion counted straight from its
    ledger by SQL (both verdicts present, infrastructure faults out)."""
    report = json.loads((finished_run / "reports" / "agreement.json").read_text())
    with sqlite3.connect(finished_run / "ledger.sqlite") as db:
        for split in ("all", "coreset"):
            where = "" if split == "all" else "AND coalesce(split, 'coreset') = 'coreset'"
            tp, fn, fp = db.execute(
                "SELECT sum(pass = 0 AND official_pass = 0), sum(pass = 1 AND official_pass = 0),"
                " sum(pass = 0 AND official_pass = 1) FROM rollouts WHERE status != 'infra_error'"
                f" AND pass IS NOT NULL AND official_pass IS NOT NULL {where}"
            ).fetchone()
            assert tp + fn > 0, "the tiny run has official failures to catch"
            assert report[split]["failure_recall"] == pytest.approx(tp / (tp + fn))
            if tp + fp:
                assert report[split]["failure_precision"] == pytest.approx(tp / (tp + fp))


def test_rates_without_denominator_are_none() -> None:
    a = agreement([True, True], [True, True])
    assert a.failure_recall is None and a.failure_precision is None
    assert a.accuracy == 1.0
    assert agreement([], []).accuracy is None
    with pytest.raises(ValueError, match="paired"):
        agreement([True], [])


def rollouts() -> pd.DataFrame:
    rows = [
        ("coreset", "ok", 0, 0),
        ("coreset", "ok", 1, 1),
        ("coreset", "ok", 1, 0),
        ("validation", "ok", 0, 1),
        ("validation", "timeout", 0, 0),
        ("test", "ok", None, 0),  # no synthesized verdict on the test split: left out
        ("coreset", "infra_error", 1, 0),  # infrastructure faults never count
        (None, "ok", 0, None),  # no official verdict: left out
    ]
    return pd.DataFrame(rows, columns=["split", "status", "pass", "official_pass"])


def test_by_split_uses_only_rollouts_with_both_verdicts() -> None:
    out = agreement_by_split(rollouts())
    assert set(out) == {"all", "coreset", "validation"}
    assert out["all"].rollouts == 5
    assert (out["coreset"].both_fail, out["coreset"].official_only_fail) == (1, 1)
    assert out["validation"].synth_only_fail == 1 and out["validation"].both_fail == 1


def test_written_and_read_back(tmp_path: Path) -> None:
    by_split = agreement_by_split(rollouts())
    write_agreement(tmp_path / "reports", by_split)
    data = json.loads((tmp_path / "reports" / "agreement.json").read_text())
    assert data["positive_class"] == "failure"
    assert data["all"]["failure_recall"] == pytest.approx(2 / 3)
    lines = load_lines(tmp_path)
    assert lines == [describe(name, a) for name, a in by_split.items()]
    assert "failure recall 66.7%" in lines[0]
    assert load_lines(tmp_path / "elsewhere") == []
