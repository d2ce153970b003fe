"""Component removal: each catalog mechanism of an operating point removed once, K attempts on
the coreset with the official tests, opt-in by `evaluation.removal_rollouts`."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.cli import main
from harnesspro.core.ledger import Ledger
from harnesspro.core.records import Candidate, RolloutRow
from harnesspro.evaluation.removal import point_genes, removals, variants
from harnesspro.reports.removal import removal_table
from tests.conftest import tiny_config


def _c(cid: str, parent: str | None, mechanism: str | None) -> Candidate:
    return Candidate(cid, "sha", cid, parent, "balanced", mechanism, 1)


def test_a_points_mechanisms_come_from_its_whole_lineage_and_each_is_removed_once() -> None:
    lineage = {
        "c000": _c("c000", None, None),
        "c001": _c("c001", "c000", "concise_prompt+step_cap"),
        "c002": _c("c002", "c001", "high_effort"),
        "c003": _c("c003", "c000", "a written change"),
    }
    genes = point_genes("c002", lineage)
    assert genes == ("concise_prompt", "step_cap", "high_effort")
    assert point_genes("c003", lineage) is None  # not rebuildable from the catalog
    made = variants("c002", genes)
    assert [v.id for v in made] == [
        "c002-whole", "c002-no-concise_prompt", "c002-no-step_cap", "c002-no-high_effort"
    ]  # fmt: skip
    assert made[2].genes == ("concise_prompt", "high_effort")


def test_the_change_is_against_the_whole_point() -> None:
    planned = [("lite", v) for v in variants("c002", ("a", "b"))]
    rows = [("c002-whole", 1, 1.0), ("c002-whole", 1, 1.0), ("c002-no-a", 0, 2.0),
            ("c002-no-a", 1, 2.0), ("c002-no-b", 1, 0.5)]  # fmt: skip
    rollouts = [
        RolloutRow(f"k{i}", cid, "t", "coreset", "ok", None, official_pass=bool(p), cost=c)
        for i, (cid, p, c) in enumerate(rows)
    ]
    table = removal_table(removals(rollouts, planned)).set_index("candidate")
    assert table.loc["c002-no-a", "pass_change"] == pytest.approx(-0.5)
    assert table.loc["c002-no-a", "cost_change"] == pytest.approx(1.0)
    assert table.loc["c002-no-b", "cost_change"] == pytest.approx(-0.5)
    assert table.loc["c002-whole", "pass_change"] == 0


def test_a_run_with_a_removal_budget_reports_each_removal(
    tmp_path: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    evaluation = {"attempts": 1, "removal_rollouts": 400, "validation_tasks": 2,
                  "validation_rollouts": 1}  # fmt: skip
    config = tiny_config(tmp_path, evaluation=evaluation)
    run = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run)]) == 0
    table = pd.read_csv(run / "reports" / "removal.csv")
    assert not table.empty and (table["rollouts"] > 0).all()
    wholes = table[table["candidate"].str.endswith("-whole")]
    assert set(wholes["point"]) == set(table["point"])
    assert all(math.isclose(x, 0) for x in wholes["pass_change"])
    out = capsys.readouterr().out
    assert "component removal (coreset, official tests" in out
    ledger = Ledger(run / "ledger.sqlite")  # the run's own candidates are untouched
    try:
        assert not any("-no-" in c.id or "-whole" in c.id for c in ledger.candidates())
    finally:
        ledger.close()
    assert 'id="removal"' in (run / "dashboard.html").read_text()
