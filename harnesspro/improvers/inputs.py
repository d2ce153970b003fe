"""The records improvers and the test synthesizer receive: built in one place
(`harnesspro.run.disclosure`, which enforces what each may see), read by every role."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harnesspro.core.records import Candidate, Score, Trace
from harnesspro.improvers.library import LibraryLesson


@dataclass(frozen=True)
class CandidateDiff:
    """What a child changed relative to its parent, and what that did on the coreset."""

    parent_id: str
    child_id: str
    directive: str | None
    mechanism: str | None
    diff: str
    d_pass: float | None
    d_cost: float | None
    """Relative change of cost per task; None while the child is unmeasured."""


@dataclass(frozen=True)
class Lesson:
    """One earlier plan, what it predicted, what it did on the coreset, and the verdict."""

    epoch: int
    parent_id: str
    child_id: str | None
    directive: str
    name: str
    kind: str
    levers: tuple[str, ...]
    change: str
    predicted_pass: float
    predicted_cost: float
    measured_pass: float | None
    measured_cost: float | None
    verdict: str | None
    note: str


@dataclass(frozen=True)
class ImproverInputs:
    """Everything any improver may read in one epoch."""

    epoch: int
    parents: tuple[str, ...]
    traces: tuple[Trace, ...]
    instructions: Mapping[str, str]
    """Instructions of the coreset tasks."""
    candidates: Mapping[str, Candidate]
    scores: Mapping[str, Score]
    """Coreset (train) scores by the frozen tests."""
    validation: Mapping[str, Score]
    """Validation aggregates only."""
    diffs: tuple[CandidateDiff, ...]
    memory: tuple[Lesson, ...] = ()
    """Earlier plans of this run with their measured effects and verdicts."""
    library: tuple[LibraryLesson, ...] = ()
    """Earlier runs' lessons for this model and task family (experience library)."""

    def traces_of(self, candidate_id: str) -> list[Trace]:
        return [t for t in self.traces if t.candidate_id == candidate_id]


@dataclass(frozen=True)
class SeedView:
    """One seed rollout as the synthesizer sees it."""

    trajectory: str
    files: Mapping[str, str]
    """Small text files of the final workspace (cut), outside `.git/`."""
    other_files: tuple[str, ...]
    """Files listed by name only (binary, or past the size limits)."""
    links: Mapping[str, str]
    modes: Mapping[str, str]
    git: Mapping[str, Mapping[str, str]]


@dataclass(frozen=True)
class SynthesizerInputs:
    """Everything the llm test synthesizer may read to write one task's test."""

    task_id: str
    instruction: str
    workdir: str
    seeds: tuple[SeedView, ...]
