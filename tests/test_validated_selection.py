"""`selection.validated`: operating points chosen on coreset and validation scores pooled,
each new pick validated before the choice is final."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from conftest import tiny_config

from harnesspro.cli import main
from harnesspro.core.config import load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.records import Score
from harnesspro.evaluation.engine import Evaluated
from harnesspro.evaluation.selection.select import Selected
from harnesspro.evolution import epoch as evolution
from harnesspro.evolution import finish
from harnesspro.run.validation_scores import pool


def score(cid: str, pass_rate: float, cost: float, n: int = 8) -> Score:
    return Score(cid, pass_rate, cost, tokens_per_task=100.0 * cost, n_rollouts=n)


def test_pooling_weighs_every_task_alike() -> None:
    # 4 coreset tasks at 50% and $0.010, 2 validation tasks at 100% and $0.040:
    # (4 x 0.5 + 2 x 1.0) / 6 = 2/3, (4 x 0.010 + 2 x 0.040) / 6 = $0.020.
    both = pool(score("c1", 0.5, 0.010), score("c1", 1.0, 0.040, n=2), 4, 2)
    assert both.pass_rate == pytest.approx(2 / 3)
    assert both.cost_per_task == pytest.approx(0.020)
    assert both.n_rollouts == 10
    unknown = pool(score("c1", 0.5, math.nan), score("c1", 1.0, 0.040, n=2), 4, 2)
    assert math.isnan(unknown.cost_per_task)  # an unknown part stays unknown, never 0


def test_a_validated_selection_needs_validation_rollouts(tmp_path: Path) -> None:
    config = tiny_config(
        tmp_path, selection={"validated": True}, evaluation={"validation_rollouts": 0}
    )
    with pytest.raises(ConfigError, match="selection.validated"):
        load_config(config)


class FakeRun:
    """The ledger's view `settle` reads: validated candidates, and a choice that depends on
    which candidates are validated (a pick that validates badly loses its place)."""

    def __init__(self, choices: dict[frozenset[str], list[str]], cap: int) -> None:
        self.validated: set[str] = {"c000"}
        self.choices, self.cap, self.validations = choices, cap, []  # type: list[list[str]]

    def select(self, ctx: object, epoch: int) -> Selected:
        picks = self.choices[frozenset(self.validated)]
        modes = dict(zip(("lite", "medium", "heavy"), picks, strict=True))
        return Selected(epoch, modes, set(picks), 0.0)

    def validate(self, ctx: object, parents: list[str], epoch: int, cap: object) -> Evaluated:
        self.validations.append(list(parents))
        fits = parents[: self.cap]
        self.cap -= len(fits)
        self.validated |= set(fits)
        return Evaluated(len(fits), tuple(parents[len(fits) :]))


def settled(monkeypatch: pytest.MonkeyPatch, run: FakeRun) -> Selected:
    monkeypatch.setattr(evolution, "select_epoch", run.select)
    monkeypatch.setattr(
        evolution,
        "validation_step",
        lambda ctx, parents, epoch: run.validate(ctx, parents, epoch, None),
    )
    monkeypatch.setattr(evolution, "validation_scores", lambda ctx: dict.fromkeys(run.validated))
    monkeypatch.setattr(evolution, "rollout_cap", lambda ctx: None)
    monkeypatch.setattr(evolution, "note_stop", lambda *args: None)

    class Ctx:
        class run:  # noqa: N801 - stands in for ctx.run
            @staticmethod
            def mark_phase(phase: str) -> None:
                pass

    return evolution.settle(Ctx(), 1)  # type: ignore[arg-type]


def test_settle_validates_each_new_pick_until_the_choice_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # c001 is picked first; validated it drops out for c002, which holds once validated.
    choices = {
        frozenset({"c000"}): ["c000", "c001", "c001"],
        frozenset({"c000", "c001"}): ["c000", "c002", "c002"],
        frozenset({"c000", "c001", "c002"}): ["c000", "c002", "c002"],
    }
    run = FakeRun(choices, cap=10)
    chosen = settled(monkeypatch, run)
    assert run.validations == [["c001"], ["c002"]]  # one validation per new pick, no repeats
    assert chosen.parents == ["c000", "c002"]


def test_settle_stops_when_the_cap_leaves_nothing_to_validate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    choices = {
        frozenset({"c000"}): ["c000", "c001", "c001"],
        frozenset({"c000", "c001"}): ["c000", "c002", "c003"],
    }
    run = FakeRun(choices, cap=1)
    chosen = settled(monkeypatch, run)
    assert run.validations == [["c001"], ["c002", "c003"]]
    assert chosen.parents == ["c000", "c002", "c003"]  # kept unvalidated: no budget left


def per_task(frame: pd.DataFrame, column: str) -> float:
    """A candidate's mean over tasks of its per-task mean, computed from ledger rows."""
    return float(frame.groupby("task_id")[column].mean().mean())


@pytest.mark.slow
def test_a_validated_run_records_pooled_picks(
    tmp_path: Path, ray_session: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    evaluation = {"validation_tasks": 2, "validation_rollouts": 1, "final": False}
    # (This run also checks `reports.dashboard: end`: one dashboard, when the run ends.)
    sections = {"evaluation": evaluation, "reports": {"dashboard": "end"}}
    config = tiny_config(tmp_path, selection={"validated": True}, **sections)
    written: list[Path] = []
    real = finish.write_dashboard

    def recorded(root: Path) -> Path:
        written.append(real(root))
        return written[-1]

    monkeypatch.setattr(evolution, "write_dashboard", recorded)  # reports.dashboard: every_epoch
    monkeypatch.setattr(finish, "write_dashboard", recorded)  # the run's end
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    assert len(written) == 1 and written[0].is_file()  # two epochs closed, one dashboard
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        rollouts = pd.read_sql_query(
            "SELECT candidate_id, task_id, split, pass, cost FROM rollouts "
            "WHERE status != 'infra_error'",
            db,
        )
        picks = pd.read_sql_query("SELECT * FROM selections WHERE epoch = 1", db)
    validated = set(rollouts[rollouts["split"] == "validation"]["candidate_id"])
    assert set(picks["candidate_id"]) <= validated  # every final pick was validated
    for pick in picks.itertuples():
        mine = rollouts[rollouts["candidate_id"] == pick.candidate_id]
        # every task weighs the same, whichever split it is on: 3 coreset + 2 validation
        assert mine["task_id"].nunique() == 5
        assert pick.pass_rate == pytest.approx(per_task(mine, "pass"))
