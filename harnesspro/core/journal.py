"""The improve step's journal: what a crashed run already decided, read back on resume.

The step's plans are journaled as one list once planned (`plans`), then each plan's edit as it
is committed (`edit <i>`: the child id and the note, written with the candidate and plan rows
in one transaction by `Ledger.record_edit`). A resumed run reuses both, so it never re-plans
and never re-edits a plan whose candidate exists; only an edit the crash interrupted is done
again (its half-made worktree and branch are replaced, the id is the same).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from harnesspro.core.ledger import Ledger
from harnesspro.core.records import Plan

PLANS = "plans"


def edit_step(index: int) -> str:
    """The journal step of the epoch's `index`-th plan's edit."""
    return f"edit {index}"


def plans_text(plans: list[Plan]) -> str:
    """The plans as journal text (JSON)."""
    return json.dumps([dataclasses.asdict(p) for p in plans])


def journaled_plans(ledger: Ledger, epoch: int) -> list[Plan] | None:
    """The epoch's plans as journaled, or None when planning had not finished."""
    text = ledger.journaled(epoch, PLANS)
    if text is None:
        return None
    return [_plan(row) for row in json.loads(text)]


def _plan(row: dict[str, Any]) -> Plan:
    # JSON has no tuples: the tuple fields come back as lists.
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in row.items()}
    return Plan(**fields)


@dataclass(frozen=True)
class JournaledEdit:
    """A finished edit: its child (None when the plan was discarded) and the note."""

    child: str | None
    note: str


def journaled_edit(ledger: Ledger, epoch: int, index: int) -> JournaledEdit | None:
    """The `index`-th plan's edit as journaled, or None when it had not finished."""
    text = ledger.journaled(epoch, edit_step(index))
    if text is None:
        return None
    row = json.loads(text)
    return JournaledEdit(row["child"], row["note"])
