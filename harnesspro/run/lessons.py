"""What a run files in the experience library after an epoch, and what it reads from it.

Storage and schema are in `library.py`; this module maps the ledger's measured plans to
library lessons and back (the run's model and task family select what is read).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harnesspro.core.ledger_rows import plan_of
from harnesspro.core.search_config import PACKAGED_SUITES
from harnesspro.harness.mechanisms.catalog import members
from harnesspro.improvers.library import Library, LibraryLesson, default_path
from harnesspro.run.context import RunContext


def library_path(ctx: RunContext) -> Path:
    return ctx.config.library.path or default_path()


def family(ctx: RunContext) -> str:
    """The task family lessons are filed under: the config's, else the suite's name."""
    suites = ctx.config.tasks.suite
    listed = suites if isinstance(suites, list) else [suites]
    names = [s if s in PACKAGED_SUITES else Path(s).name for s in listed]
    return ctx.config.library.family or "+".join(names)


def run_id(ctx: RunContext) -> str:
    return str(ctx.run.root.resolve())


def _float(value: Any) -> float | None:
    return None if value is None or value != value else float(value)


def to_lesson(ctx: RunContext, row: Mapping[Any, Any]) -> LibraryLesson:
    """One measured ledger plan as a library lesson."""
    plan = plan_of(row)
    parts = members(plan.mechanism)
    summary = "; ".join(m.summary for m in parts)
    # a catalog plan names no levers: its mechanisms' are the levers it touched
    levers = plan.levers or tuple(dict.fromkeys(m.lever for m in parts))
    return LibraryLesson(
        run=run_id(ctx), epoch=int(row["epoch"]), directive=plan.directive,
        model=ctx.config.model.name, family=family(ctx), name=plan.mechanism, kind=plan.kind,
        scope=str(row.get("scope") or "invariant"), levers=levers,
        tasks=tuple(ctx.splits.coreset), change=plan.change or summary,
        predicted_pass=plan.predicted_pass, predicted_cost=plan.predicted_cost,
        measured_pass=_float(row.get("measured_pass")),
        measured_cost=_float(row.get("measured_cost")), verdict=str(row["verdict"]),
        why=str(row.get("verdict_why") or ""), parent_id=plan.parent_id,
    )  # fmt: skip


def file_epoch(ctx: RunContext, epoch: int) -> int:
    """Write the epoch's measured plans to the library (when `library.use`); returns how many."""
    if not ctx.config.library.use:
        return 0
    plans = ctx.ledger.plans()
    rows = plans[(plans["epoch"] == epoch) & plans["verdict"].notna()].to_dict("records")
    library = Library(library_path(ctx))
    try:
        count = library.record(to_lesson(ctx, row) for row in rows)
    finally:
        library.close()
    return count


def read_lessons(ctx: RunContext) -> tuple[LibraryLesson, ...]:
    """Earlier runs' lessons for this run's model and task family (none unless `library.use`,
    or when the library file does not exist yet)."""
    path = library_path(ctx)
    if not ctx.config.library.use or not path.is_file():
        return ()
    library = Library(path)
    try:
        return tuple(library.lessons(ctx.config.model.name, family(ctx), run_id(ctx)))
    finally:
        library.close()
