"""The ledger's SQLite schema, its migrations, and how an existing file is recognised as a
ledger (or refused as damaged or foreign) before anything is written to it."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS candidates (
  id TEXT PRIMARY KEY, commit_sha TEXT, tree TEXT UNIQUE, parent TEXT, directive TEXT,
  mechanism TEXT, epoch INTEGER, created REAL);
CREATE TABLE IF NOT EXISTS rollouts (
  key TEXT PRIMARY KEY, candidate_id TEXT, task_id TEXT, attempt INTEGER, epoch INTEGER,
  status TEXT, pass INTEGER, official_pass INTEGER, uncached_input INTEGER,
  cached_input INTEGER, cache_write INTEGER, output INTEGER, reasoning INTEGER, cost REAL,
  latency_s REAL, n_calls INTEGER, artifacts TEXT, created REAL, reason TEXT, split TEXT,
  verifier_reason TEXT);
CREATE TABLE IF NOT EXISTS synth_tests (task_id TEXT PRIMARY KEY, sha256 TEXT, path TEXT);
CREATE TABLE IF NOT EXISTS refined_tests (task_id TEXT PRIMARY KEY, sha256 TEXT, path TEXT);
CREATE TABLE IF NOT EXISTS epochs (epoch INTEGER PRIMARY KEY, hypervolume REAL, finished REAL);
CREATE TABLE IF NOT EXISTS selections (
  epoch INTEGER, mode TEXT, candidate_id TEXT, pass_rate REAL, cost REAL, j REAL,
  PRIMARY KEY (epoch, mode));
CREATE TABLE IF NOT EXISTS diagnoses (
  epoch INTEGER, candidate_id TEXT, task_id TEXT, kind TEXT, count INTEGER, of INTEGER,
  effect_pass REAL, effect_cost REAL, evidence TEXT);
CREATE TABLE IF NOT EXISTS plans (
  epoch INTEGER, parent_id TEXT, directive TEXT, mechanism TEXT, rationale TEXT,
  predicted_pass REAL, predicted_cost REAL, child_id TEXT, note TEXT,
  PRIMARY KEY (epoch, parent_id, directive, mechanism));
CREATE TABLE IF NOT EXISTS intervals (
  epoch INTEGER, candidate_id TEXT, pass_lo REAL, pass_hi REAL, cost_lo REAL, cost_hi REAL,
  p_nondominated REAL, PRIMARY KEY (epoch, candidate_id));
CREATE TABLE IF NOT EXISTS journal (
  epoch INTEGER, step TEXT, value TEXT, created REAL, PRIMARY KEY (epoch, step));
CREATE TABLE IF NOT EXISTS discarded (
  key TEXT, try INTEGER, candidate_id TEXT, task_id TEXT, attempt INTEGER, epoch INTEGER,
  split TEXT, status TEXT, uncached_input INTEGER, cached_input INTEGER, cache_write INTEGER,
  output INTEGER, reasoning INTEGER, cost REAL, n_calls INTEGER, reason TEXT, created REAL,
  PRIMARY KEY (key, try));
CREATE TABLE IF NOT EXISTS compositions (
  epoch INTEGER, parent_id TEXT, outcome TEXT, children TEXT, candidate_id TEXT, why TEXT,
  PRIMARY KEY (epoch, parent_id));
CREATE TABLE IF NOT EXISTS search_calls (
  epoch INTEGER, role TEXT, attempt INTEGER, model TEXT, status INTEGER, retries INTEGER,
  uncached_input INTEGER, cached_input INTEGER, cache_write INTEGER, output INTEGER,
  reasoning INTEGER, cost REAL, latency_s REAL, note TEXT, created REAL);
"""


# Columns added after a table was first released: (table, column, type), added on open.
MIGRATIONS = [
    ("rollouts", "split", "TEXT"),
    ("rollouts", "verifier_reason", "TEXT"),
    *((("plans", c, t) for c, t in (
        ("kind", "TEXT"), ("levers", "TEXT"), ("change", "TEXT"), ("files", "TEXT"),
        ("expected_flips", "TEXT"), ("measured_pass", "REAL"), ("measured_cost", "REAL"),
        ("verdict", "TEXT"), ("verdict_why", "TEXT"), ("scope", "TEXT"),
        ("predicted_interval", "TEXT"), ("finding", "TEXT"),
    ))),
]  # fmt: skip


ROLLOUT_COLUMNS = (
    "key, candidate_id, task_id, attempt, epoch, status, pass, official_pass, uncached_input, "
    "cached_input, cache_write, output, reasoning, cost, latency_s, n_calls, artifacts, created, "
    "reason, split, verifier_reason"
)


LEDGER_TABLES = frozenset(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))
"""A database holding tables but none of these is some other program's."""


class LedgerDamaged(Exception):
    """ledger.sqlite is not a HarnessPro ledger or is damaged; the message is one sentence."""


def recognise(db: sqlite3.Connection, path: Path) -> None:
    """Raise LedgerDamaged unless `db` is empty or a sound HarnessPro ledger. A busy or full
    database is not damage: those errors pass through as they are."""
    try:
        problems = [str(row[0]) for row in db.execute("PRAGMA quick_check")]
        names = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        tables = {str(row[0]) for row in names}
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and (
            "locked" in str(exc) or "full" in str(exc)
        ):
            raise
        why = str(exc)
    else:
        if problems != ["ok"]:
            why = problems[0]
        elif tables and not tables & LEDGER_TABLES:
            why = f"it holds other tables ({', '.join(sorted(tables)[:3])})"
        else:
            return
    raise LedgerDamaged(
        f"{path} is not a HarnessPro ledger or is damaged: {why}; restore it from a copy, or "
        "pass another run folder."
    )


def migrate(db: sqlite3.Connection) -> None:
    """Add columns that ledgers written by earlier versions lack, and re-key their plans."""
    _rekey_plans(db)
    for table, column, kind in MIGRATIONS:
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if column not in present:
            with db:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _rekey_plans(db: sqlite3.Connection) -> None:
    """Ledgers written before plans were keyed by mechanism too kept one plan per parent and
    directive (random and nsga2 plan several "balanced" ones): rebuild the table with the
    current key, rows kept. SQLite cannot change a primary key in place."""
    old = {row[1]: (row[2], row[5]) for row in db.execute("PRAGMA table_info(plans)")}
    if old["mechanism"][1] > 0:  # part of the key already
        return
    create = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS plans") :].split(";")[0]
    columns = ", ".join(old)
    with db:  # one transaction (DDL included): a kill leaves the old table whole
        db.execute("BEGIN")
        db.execute("ALTER TABLE plans RENAME TO plans_before_rekey")
        db.execute(create)
        new = {row[1] for row in db.execute("PRAGMA table_info(plans)")}
        for column, (kind, _) in old.items():
            if column not in new:
                db.execute(f"ALTER TABLE plans ADD COLUMN {column} {kind}")
        db.execute(f"INSERT INTO plans ({columns}) SELECT {columns} FROM plans_before_rekey")
        db.execute("DROP TABLE plans_before_rekey")
