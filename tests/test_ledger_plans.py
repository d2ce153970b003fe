"""Plans are keyed by (epoch, parent, directive, mechanism): several same-directive plans of one
parent (random and nsga2 write all theirs as "balanced") each keep their row and verdict, also
in a ledger written under the old key, which is rebuilt on open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from harnesspro.core.ledger import Ledger
from harnesspro.core.records import Effect, Plan, RolloutResult, RolloutSpec, Usage

# The plans table as ledgers had it before the re-key (two migrated columns already added).
OLD_PLANS = """
CREATE TABLE plans (
  epoch INTEGER, parent_id TEXT, directive TEXT, mechanism TEXT, rationale TEXT,
  predicted_pass REAL, predicted_cost REAL, child_id TEXT, note TEXT,
  PRIMARY KEY (epoch, parent_id, directive));
ALTER TABLE plans ADD COLUMN kind TEXT;
ALTER TABLE plans ADD COLUMN verdict TEXT;
INSERT INTO plans (epoch, parent_id, directive, mechanism, rationale, predicted_pass,
  predicted_cost, child_id, note, kind, verdict)
  VALUES (1, 'c000', 'balanced', 'concise_prompt', 'why', 0.0, -0.2, 'c001', '', 'catalog',
  'helped');
"""


def balanced(mechanism: str) -> Plan:
    return Plan("c000", "balanced", mechanism, "random pick", 0.0, 0.0)


def test_same_directive_plans_of_one_parent_keep_their_own_rows(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    for child, mechanism in (("c001", "skim_inputs"), ("c002", "step_cap")):
        ledger.record_plan(1, balanced(mechanism), child)
    ledger.record_effect(1, balanced("step_cap"), Effect(-0.25, 0.1, "hurt", "by hand"))
    rows = ledger.db.execute("SELECT mechanism, child_id, verdict FROM plans ORDER BY 1")
    assert rows.fetchall() == [("skim_inputs", "c001", None), ("step_cap", "c002", "hurt")]


def test_a_ledger_under_the_old_key_is_rebuilt_with_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_PLANS)
    ledger = Ledger(path)
    (old,) = ledger.plans().to_dict("records")
    assert (old["mechanism"], old["child_id"], old["verdict"]) == (
        "concise_prompt",
        "c001",
        "helped",
    )
    ledger.record_plan(1, balanced("step_cap"), "c002")  # collapsed onto the old row before
    assert sorted(ledger.plans()["mechanism"]) == ["concise_prompt", "step_cap"]
    key = [row[1] for row in ledger.db.execute("PRAGMA table_info(plans)") if row[5] > 0]
    assert key == ["epoch", "parent_id", "directive", "mechanism"]
    tables = {name for (name,) in ledger.db.execute("SELECT name FROM sqlite_master")}
    assert "plans_before_rekey" not in tables
    ledger.close()
    assert len(Ledger(path).plans()) == 2  # opening again changes nothing


def test_rollouts_come_back_in_one_order_whatever_order_they_finished_in(
    tmp_path: Path,
) -> None:
    # Ray decides the order rollouts finish in; the ledger's order must not depend on it.
    specs = [
        RolloutSpec(f"k{c}{t}{a}", f"c00{c}", f"task{t}", a, 0)
        for c in (1, 0) for t in (2, 1) for a in (1, 0)
    ]  # fmt: skip
    frames = []
    for name, order in [("a", specs), ("b", list(reversed(specs)))]:
        ledger = Ledger(tmp_path / f"{name}.sqlite")
        for spec in order:
            result = RolloutResult(spec.key, "ok", Usage(), 0.5, 0.0, 1, None, "", "", {})
            ledger.record_rollout(spec, result, "")
        frames.append(ledger.rollouts()[["candidate_id", "task_id", "attempt"]])
    assert frames[0].equals(frames[1])
    assert list(frames[0].itertuples(index=False, name=None))[:3] == [
        ("c000", "task1", 0), ("c000", "task1", 1), ("c000", "task2", 0),
    ]  # fmt: skip
