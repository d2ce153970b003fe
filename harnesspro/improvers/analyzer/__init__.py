"""Trajectory analyzer: reads a task's G rollouts together and writes diagnoses.

Modes: `rules` (deterministic features, offline) and `llm` (a model through the search
account, falling back to `rules` with a recorded reason).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from harnesspro.core.records import Diagnosis
    from harnesspro.improvers.inputs import ImproverInputs

Fallbacks = dict[str, str]
"""Parent candidate id -> why a role fell back to its offline mode for it."""


class Analyzer(Protocol):
    def diagnose(self, inputs: ImproverInputs) -> tuple[list[Diagnosis], Fallbacks]:
        """Diagnoses of the parents' train traces, and the parents it fell back for."""
        ...
