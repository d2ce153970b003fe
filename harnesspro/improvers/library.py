"""The experience library: lessons with evidence that outlive a run.

After each epoch (when `library.use` is on) every plan of the epoch that has a measured verdict
goes to one SQLite file shared by the user's runs (`library.path`, default
`$XDG_DATA_HOME/harnesspro/library.sqlite`, i.e. `~/.local/share/harnesspro/library.sqlite`).
A later run's improvers read the lessons recorded under the same target model and task family
(never its own: those reach the planner as proposer memory).

Schema (table `lessons`, one row per measured plan; re-recording an epoch replaces its rows):

| column | meaning |
|---|---|
| run | the recording run's folder (absolute path) |
| epoch, directive | when and under which directive the plan ran |
| model, family | the run's target model and task family (`library.family`, default the suite) |
| name, kind, scope | the change's short name, `catalog`/`free`, `invariant`/`domain` |
| levers, tasks | JSON lists: the levers touched; the coreset tasks it was measured on |
| change | the change in words (free plans; the catalog summary otherwise) |
| predicted_pass, predicted_cost | the planner's prediction |
| measured_pass, measured_cost | the paired coreset effect (cost NULL when unknown) |
| verdict, why | `helped` / `hurt` / `no effect` / `confounded` and the figures behind it |
| created | unix time |
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS lessons (
  run TEXT, epoch INTEGER, directive TEXT, model TEXT, family TEXT, name TEXT, kind TEXT,
  scope TEXT, levers TEXT, tasks TEXT, change TEXT, predicted_pass REAL, predicted_cost REAL,
  measured_pass REAL, measured_cost REAL, verdict TEXT, why TEXT, created REAL,
  parent_id TEXT, PRIMARY KEY (run, epoch, parent_id, directive));
"""


def default_path() -> Path:
    """library.sqlite under the user's data directory (XDG_DATA_HOME, else ~/.local/share)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "harnesspro" / "library.sqlite"


@dataclass(frozen=True)
class LibraryLesson:
    """One measured change from an earlier run, with its evidence."""

    run: str
    epoch: int
    directive: str
    model: str
    family: str
    name: str
    kind: str
    scope: str
    levers: tuple[str, ...]
    tasks: tuple[str, ...]
    change: str
    predicted_pass: float
    predicted_cost: float
    measured_pass: float | None
    measured_cost: float | None
    verdict: str
    why: str
    parent_id: str = ""


class Library:
    """Reads and writes of one library file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path)
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def record(self, lessons: Iterable[LibraryLesson]) -> int:
        """Insert or replace lessons; returns how many."""
        rows = [
            (
                x.run, x.epoch, x.directive, x.model, x.family, x.name, x.kind, x.scope,
                json.dumps(list(x.levers)), json.dumps(list(x.tasks)), x.change,
                x.predicted_pass, x.predicted_cost, x.measured_pass, x.measured_cost, x.verdict,
                x.why, time.time(), x.parent_id,
            )
            for x in lessons
        ]  # fmt: skip
        with self.db:
            self.db.executemany(
                f"INSERT OR REPLACE INTO lessons VALUES ({', '.join('?' * 19)})", rows
            )
        return len(rows)

    def lessons(self, model: str, family: str, exclude_run: str = "") -> list[LibraryLesson]:
        """Lessons recorded under `model` and `family` by other runs, oldest first."""
        self.db.row_factory = sqlite3.Row
        rows = self.db.execute(
            "SELECT * FROM lessons WHERE model = ? AND family = ? AND run != ? ORDER BY created",
            (model, family, exclude_run),
        ).fetchall()
        lessons = []
        for row in rows:
            data = dict(zip(row.keys(), tuple(row), strict=True))
            del data["created"]
            data["levers"] = tuple(json.loads(data["levers"]))
            data["tasks"] = tuple(json.loads(data["tasks"]))
            data["parent_id"] = data["parent_id"] or ""
            lessons.append(LibraryLesson(**data))
        return lessons


def harmful(lessons: Sequence[LibraryLesson]) -> dict[str, str]:
    """Names whose library record is net harmful (more `hurt` than `helped` verdicts), with
    the evidence of the latest `hurt` lesson."""
    tally = Counter((x.name, x.verdict) for x in lessons)
    found = {}
    for x in lessons:
        if x.verdict == "hurt" and tally[(x.name, "hurt")] > tally[(x.name, "helped")]:
            found[x.name] = f"hurt in {Path(x.run).name} epoch {x.epoch} ({x.directive}): {x.why}"
    return found
