"""Evolution planner: modification plans for each survivor under three directives.

Modes: `catalog` (one catalog mechanism per plan, offline) and `llm` (free-form plans from a
model through the search account, falling back to `catalog` with a recorded reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from harnesspro.core.records import Diagnosis, Plan
    from harnesspro.improvers.analyzer import Fallbacks
    from harnesspro.improvers.inputs import ImproverInputs


class Planner(Protocol):
    def plan(
        self,
        inputs: ImproverInputs,
        diagnoses: list[Diagnosis],
        prevalences: Mapping[str, Mapping[str, float]],
    ) -> tuple[list[Plan], Fallbacks]:
        """Plans for every parent in `inputs`, and the parents it fell back for."""
        ...
