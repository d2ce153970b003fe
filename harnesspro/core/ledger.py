"""The SQLite run ledger: the only place that knows SQL. Only the driver writes it."""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from harnesspro.core.ledger_rows import plan_row, rollout_row, usage_row
from harnesspro.core.ledger_schema import ROLLOUT_COLUMNS, SCHEMA, migrate, recognise
from harnesspro.core.records import (
    Candidate,
    Diagnosis,
    Effect,
    ModelCall,
    Plan,
    RolloutResult,
    RolloutRow,
    RolloutSpec,
    Usage,
)

# `RolloutRow`'s fields as the rollouts table holds them, in `row_of`'s order.
ROW_COLUMNS = (
    "key, candidate_id, task_id, COALESCE(split, 'coreset') AS part, status, pass, attempt, "
    "epoch, official_pass, uncached_input, cached_input, cache_write, output, reasoning, cost, "
    "latency_s, n_calls, artifacts, reason, verifier_reason"
)
FRAME_COLUMNS = [
    "key", "candidate_id", "task_id", "split", "status", "pass", "attempt", "epoch",
    "official_pass", "uncached_input", "cached_input", "cache_write", "output", "reasoning",
    "cost", "latency_s", "n_calls", "artifacts", "reason", "verifier_reason",
]  # fmt: skip
"""`rollout_frame`'s columns: the rollouts table's names (bar `created`), then `tokens`."""


class Ledger:
    """Typed reads and writes over one run's ledger.sqlite (WAL mode)."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path)
        try:
            recognise(self.db, path)
        except BaseException:
            self.db.close()
            raise
        self.db.execute("PRAGMA journal_mode=WAL")
        # No fsync per commit (WAL stays consistent; a power cut may lose the last rows, whose
        # rollouts a resumed run then redoes): a commit per finished rollout must stay cheap.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        migrate(self.db)

    def close(self) -> None:
        self.db.close()

    def _write(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        with self.db:
            self.db.executemany(sql, rows)

    def set_meta(self, key: str, value: str) -> None:
        self._write("INSERT OR REPLACE INTO meta VALUES (?, ?)", [(key, value)])

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def add_candidate(self, c: Candidate) -> None:
        row = (c.id, c.commit, c.tree, c.parent, c.directive, c.mechanism, c.epoch, time.time())
        self._write("INSERT INTO candidates VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [row])

    def record_edit(
        self,
        epoch: int,
        step: str,
        plan: Plan,
        made: Candidate | None,
        child: str | None,
        note: str,
    ) -> None:
        """One plan's edit in one transaction: its new candidate `made` (if any), its plan row
        (child id and note) and the journal's `step`, so a crash leaves all or none of them."""
        with self.db:
            if made is not None:
                self.db.execute(
                    "INSERT INTO candidates VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (made.id, made.commit, made.tree, made.parent, made.directive,
                     made.mechanism, made.epoch, time.time()),
                )  # fmt: skip
            self.db.execute(*plan_row(epoch, plan, child, note))
            self.db.execute(
                "INSERT OR REPLACE INTO journal VALUES (?, ?, ?, ?)",
                (epoch, step, json.dumps({"child": child, "note": note}), time.time()),
            )

    def candidates(self) -> list[Candidate]:
        rows = self.db.execute(
            "SELECT id, commit_sha, tree, parent, directive, mechanism, epoch FROM candidates "
            "ORDER BY id"
        ).fetchall()
        return [Candidate(*row) for row in rows]

    def record_rollout(
        self, spec: RolloutSpec, result: RolloutResult, artifacts: str, split: str = "coreset"
    ) -> None:
        """One finished rollout; `split` says which task split it ran on."""
        row = rollout_row(spec, result, artifacts, split)
        placeholders = ", ".join("?" * len(row))
        self._write(
            f"INSERT OR REPLACE INTO rollouts ({ROLLOUT_COLUMNS}) VALUES ({placeholders})", [row]
        )

    def record_discarded(
        self, spec: RolloutSpec, result: RolloutResult, split: str, tried: int
    ) -> None:
        """A rollout attempt that ended in an infrastructure error and is run again: never
        scored, but its spend is real and counts against the caps."""
        row = (
            spec.key, tried, spec.candidate_id, spec.task_id, spec.attempt, spec.epoch, split,
            result.status, *usage_row(result.usage), result.cost, result.n_calls, result.reason,
            time.time(),
        )  # fmt: skip
        placeholders = ", ".join("?" * len(row))
        self._write(f"INSERT OR REPLACE INTO discarded VALUES ({placeholders})", [row])

    def discarded(self) -> pd.DataFrame:
        """Every discarded (re-run) rollout attempt and what it spent."""
        return pd.read_sql_query("SELECT * FROM discarded ORDER BY created", self.db)

    def journal(self, epoch: int, step: str, value: str) -> None:
        """Record that `step` of `epoch` finished, with what it produced (JSON text), so a
        resumed run reuses it instead of doing the step again."""
        self._write(
            "INSERT OR REPLACE INTO journal VALUES (?, ?, ?, ?)",
            [(epoch, step, value, time.time())],
        )

    def journaled(self, epoch: int, step: str) -> str | None:
        """What a finished step of `epoch` produced, or None when it has not finished."""
        row = self.db.execute(
            "SELECT value FROM journal WHERE epoch = ? AND step = ?", (epoch, step)
        ).fetchone()
        return None if row is None else str(row[0])

    def rollout_keys(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT key FROM rollouts")}

    def set_passes(self, verdicts: dict[str, bool]) -> None:
        self._write(
            "UPDATE rollouts SET pass = ? WHERE key = ?",
            [(int(v), k) for k, v in verdicts.items()],
        )

    def clear_passes(self, keys: list[str]) -> None:
        """Forget the verdicts of these rollouts (their task's test can no longer score)."""
        self._write("UPDATE rollouts SET pass = NULL WHERE key = ?", [(k,) for k in keys])

    def search_dollars(self) -> float:
        """Known target-model dollars of every rollout outside the test split, discarded
        (re-run) attempts included; an unknown cost adds nothing it cannot name."""
        row = self.db.execute(
            "SELECT (SELECT COALESCE(SUM(cost), 0) FROM rollouts "
            "WHERE COALESCE(split, '') != 'test') + "
            "(SELECT COALESCE(SUM(cost), 0) FROM discarded WHERE split != 'test')"
        ).fetchone()
        return float(row[0])

    def heldout_dollars(self) -> float:
        """Known target-model dollars of the held-out evaluation's rollouts (the test split),
        discarded (re-run) attempts included."""
        row = self.db.execute(
            "SELECT (SELECT COALESCE(SUM(cost), 0) FROM rollouts WHERE split = 'test') + "
            "(SELECT COALESCE(SUM(cost), 0) FROM discarded WHERE split = 'test')"
        ).fetchone()
        return float(row[0])

    def rollouts(self) -> pd.DataFrame:
        """Every rollout; `split` is NULL only for rollouts of ledgers from before splits.

        In one fixed order (candidate, split, task, attempt), not the order rollouts finished
        in, which Ray decides: so every figure computed from them (sums, bootstrap draws,
        evidence lists) is the same when the run is repeated or resumed."""
        return pd.read_sql_query(
            f"SELECT {ROLLOUT_COLUMNS} FROM rollouts "
            "ORDER BY candidate_id, split, task_id, attempt, key",
            self.db,
        )

    def rollout_rows(self, where: str = "1", args: tuple[str, ...] = ()) -> list[RolloutRow]:
        """Rollouts as typed rows, in the order of `rollouts`; `split` is `coreset` for
        rollouts of ledgers from before splits. `where` is an SQL condition of this module's
        own (never a user's text)."""
        rows = self.db.execute(
            f"SELECT {ROW_COLUMNS} FROM rollouts WHERE {where} "
            "ORDER BY candidate_id, split, task_id, attempt, key",
            args,
        )
        return [row_of(*values) for values in rows]

    def search_rollouts(self, task_id: str) -> list[RolloutRow]:
        """A task's coreset and validation rollouts that are not infrastructure faults (never
        a held-out one)."""
        where = "task_id = ? AND status != 'infra_error' AND part IN ('coreset', 'validation')"
        return self.rollout_rows(where, (task_id,))

    def freeze_test(self, task_id: str, sha256: str, path: str) -> None:
        self._write("INSERT INTO synth_tests VALUES (?, ?, ?)", [(task_id, sha256, path)])

    def frozen_tests(self) -> dict[str, tuple[str, str]]:
        rows = self.db.execute("SELECT task_id, sha256, path FROM synth_tests")
        return {task: (digest, path) for task, digest, path in rows}

    def refine_test(self, task_id: str, sha256: str, path: str) -> None:
        """Record a task's current refinement of its frozen test (the last one counts)."""
        sql = "INSERT OR REPLACE INTO refined_tests VALUES (?, ?, ?)"
        self._write(sql, [(task_id, sha256, path)])

    def refined_tests(self) -> dict[str, tuple[str, str]]:
        rows = self.db.execute("SELECT task_id, sha256, path FROM refined_tests")
        return {task: (digest, path) for task, digest, path in rows}

    def finish_epoch(self, epoch: int, hypervolume: float) -> None:
        self._write(
            "INSERT OR REPLACE INTO epochs VALUES (?, ?, ?)", [(epoch, hypervolume, time.time())]
        )

    def finished_epochs(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM epochs ORDER BY epoch", self.db)

    def record_selection(
        self, epoch: int, rows: list[tuple[str, str, float, float, float]]
    ) -> None:
        self._write(
            "INSERT OR REPLACE INTO selections VALUES (?, ?, ?, ?, ?, ?)",
            [(epoch, *row) for row in rows],
        )

    def selections(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM selections ORDER BY epoch, mode", self.db)

    def record_diagnoses(self, epoch: int, diagnoses: list[Diagnosis]) -> None:
        self._write("DELETE FROM diagnoses WHERE epoch = ?", [(epoch,)])
        self._write(
            "INSERT INTO diagnoses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    epoch,
                    d.candidate_id,
                    d.task_id,
                    d.kind,
                    d.count,
                    d.of,
                    d.effect_pass,
                    d.effect_cost,
                    d.evidence,
                )
                for d in diagnoses
            ],
        )

    def diagnoses(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM diagnoses", self.db)

    def record_plan(self, epoch: int, plan: Plan, child_id: str | None, note: str = "") -> None:
        sql, row = plan_row(epoch, plan, child_id, note)
        self._write(sql, [row])

    def record_effect(self, epoch: int, plan: Plan, effect: Effect) -> None:
        """A plan's measured effect and verdict (proposer memory)."""
        self._write(
            "UPDATE plans SET measured_pass = ?, measured_cost = ?, verdict = ?, verdict_why = ? "
            "WHERE epoch = ? AND parent_id = ? AND directive = ? AND mechanism = ?",
            [(effect.d_pass, effect.d_cost, effect.verdict, effect.why, epoch, plan.parent_id,
              plan.directive, plan.mechanism)],
        )  # fmt: skip

    def plans(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM plans ORDER BY epoch, parent_id", self.db)

    def plan_rows(self) -> list[dict[str, Any]]:
        """The plans table's rows (in the order of `plans`), column -> value, NaN for NULL."""
        return records_of(self.plans())

    def record_intervals(
        self, epoch: int, rows: list[tuple[str, float, float, float, float, float]]
    ) -> None:
        """Per candidate: pass-rate and cost confidence bounds and P(non-dominated)."""
        self._write("DELETE FROM intervals WHERE epoch = ?", [(epoch,)])
        self._write(
            "INSERT INTO intervals VALUES (?, ?, ?, ?, ?, ?, ?)", [(epoch, *row) for row in rows]
        )

    def intervals(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM intervals ORDER BY epoch, candidate_id", self.db)

    def record_composition(
        self,
        epoch: int,
        parent_id: str,
        outcome: str,
        children: Iterable[str],
        candidate_id: str | None,
        why: str,
    ) -> None:
        """The composer's outcome for one parent: merge, pick or keep-base."""
        row = (epoch, parent_id, outcome, json.dumps(list(children)), candidate_id, why)
        self._write("INSERT OR REPLACE INTO compositions VALUES (?, ?, ?, ?, ?, ?)", [row])

    def compositions(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM compositions ORDER BY epoch, parent_id", self.db)

    def composition_rows(self) -> list[dict[str, Any]]:
        """The compositions table's rows (in the order of `compositions`), column -> value."""
        return records_of(self.compositions())

    # -- the search-cost account (improver calls, metered apart from the harness's cost) --
    def record_search_call(
        self, epoch: int, role: str, attempt: int, call: ModelCall, note: str = ""
    ) -> int:
        """One improver call; returns its row id (for `note_search_call`)."""
        row = (
            epoch, role, attempt, call.model, call.status, call.retries, *usage_row(call.usage),
            call.cost, call.latency_s, note, time.time(),
        )  # fmt: skip
        with self.db:
            cursor = self.db.execute(
                f"INSERT INTO search_calls VALUES ({', '.join('?' * len(row))})", row
            )
        return int(cursor.lastrowid or 0)

    def note_search_call(self, rowid: int, note: str) -> None:
        """Say what became of an improver call's answer (invalid, used, fell back)."""
        self._write("UPDATE search_calls SET note = ? WHERE rowid = ?", [(note, rowid)])

    def search_calls(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM search_calls ORDER BY created", self.db)


def passing_tasks(path: Path) -> set[str]:
    """Task ids with at least one officially passed rollout in a run's ledger, read-only."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        recognise(db, path)
        rows = db.execute("SELECT DISTINCT task_id FROM rollouts WHERE official_pass = 1")
        return {str(row[0]) for row in rows}
    finally:
        db.close()


def records_of(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A frame's rows as column -> value, in its order (NaN where the ledger holds NULL)."""
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict("records")]


def _known(value: Any) -> Any:
    """A ledger value, None where it is NULL (NaN in a frame)."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _flag(value: Any) -> bool | None:
    value = _known(value)
    return None if value is None else bool(value)


def row_of(*values: Any) -> RolloutRow:
    """A rollout's typed row from its values in `FRAME_COLUMNS` order (NULL or NaN: unknown)."""
    key, cand, task, split, status, passed, attempt, epoch, official = values[:9]
    split = _known(split)
    parts = [_known(v) for v in values[9:14]]
    cost, latency, calls, artifacts, reason, why = (_known(v) for v in values[14:20])
    return RolloutRow(
        str(key), str(cand), str(task), str(split or "coreset"), str(status), _flag(passed),
        int(attempt), int(epoch), _flag(official),
        None if None in parts else Usage(*(int(p) for p in parts)),
        None if cost is None else float(cost), float(latency or 0.0), int(calls or 0),
        str(artifacts or ""), reason, why,
    )  # fmt: skip


FRAME_DEFAULTS: dict[str, Any] = {
    "key": "", "split": "coreset", "status": "ok", "pass": None, "attempt": 0, "epoch": 0,
    "official_pass": None, "cost": None, "latency_s": 0.0, "n_calls": 0, "artifacts": "",
    "reason": None, "verifier_reason": None,
}  # fmt: skip


def rows_of(frame: pd.DataFrame) -> list[RolloutRow]:
    """Typed rows of a frame of the ledger's rollouts (`Ledger.rollouts`), in its order; a
    column it lacks takes its default (the token columns: unknown)."""
    columns = [
        frame[c] if c in frame else [FRAME_DEFAULTS.get(c)] * len(frame) for c in FRAME_COLUMNS
    ]
    return [row_of(*values) for values in zip(*columns, strict=True)]


def _values(row: RolloutRow) -> tuple[Any, ...]:
    u = row.usage
    parts = (None,) * 5 if u is None else (
        u.uncached_input, u.cached_input, u.cache_write, u.output, u.reasoning
    )  # fmt: skip
    flags = [None if v is None else int(v) for v in (row.passed, row.official_pass)]
    return (
        row.key, row.candidate_id, row.task_id, row.split, row.status, flags[0], row.attempt,
        row.epoch, flags[1], *parts, row.cost, row.latency_s, row.n_calls, row.artifacts,
        row.reason, row.verifier_reason, math.nan if u is None else float(u.total),
    )  # fmt: skip


def rollout_frame(rows: Iterable[RolloutRow]) -> pd.DataFrame:
    """Rows as the ledger's frame (`FRAME_COLUMNS`, NULL as the SQL reader gives it), with each
    rollout's billed `tokens` (NaN when unknown), for the aggregates computed with pandas."""
    records = [_values(row) for row in rows]
    columns = [*FRAME_COLUMNS, "tokens"]
    if not records:  # typed columns still, so an empty group's mean is NaN as in SQL's frame
        text = {"key", "candidate_id", "task_id", "split", "status", "artifacts", "reason"}
        text.add("verifier_reason")
        return pd.DataFrame({c: pd.Series(dtype=object if c in text else float) for c in columns})
    return pd.DataFrame.from_records(records, columns=columns, coerce_float=True)
