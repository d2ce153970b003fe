"""Harness editor: turns a plan into a validated candidate committed in its own worktree.

Modes: `catalog` (applies the plan's catalog mechanism) and `llm` (a coding agent in a
sandbox with the worktree writable, falling back to the catalog edit where one exists).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from harnesspro.core.records import Candidate, Plan
    from harnesspro.harness.repo import HarnessRepo
    from harnesspro.improvers.editor.apply import Edit


class Editor(Protocol):
    def edit(
        self,
        plan: Plan,
        parent: Candidate,
        repo: HarnessRepo,
        existing: list[Candidate],
        new_id: str,
        epoch: int,
    ) -> Edit:
        """A new or existing candidate for `plan`, or a discard reason."""
        ...
