"""The improver modes, each filling the three role protocols: `catalog` (offline,
deterministic) and `llm` (model calls through the search account, each role falling back to
its catalog counterpart with a recorded reason)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from harnesspro.core.records import Candidate, Diagnosis, Plan
from harnesspro.harness.repo import HarnessRepo
from harnesspro.improvers.account import SearchAccount, SearchUnavailable
from harnesspro.improvers.analyzer import Analyzer, Fallbacks
from harnesspro.improvers.analyzer import llm as llm_analyzer
from harnesspro.improvers.analyzer.rules import analyze
from harnesspro.improvers.editor import Editor
from harnesspro.improvers.editor.apply import Edit, apply_plan, apply_plan_or_catalog
from harnesspro.improvers.editor.llm import LLMEditor
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.improvers.library import harmful
from harnesspro.improvers.planner import Planner
from harnesspro.improvers.planner import llm as llm_planner
from harnesspro.improvers.planner.catalog import plan_all
from harnesspro.improvers.planner.evidence import beliefs_from
from harnesspro.improvers.planner.exploration import Exploration


class Improver(Analyzer, Planner, Editor, Protocol):
    """The three roles of one improver mode."""


class CatalogImprover:
    """Rule-based features, catalog planning, catalog edits (validated in `backend`)."""

    def __init__(
        self,
        backend: str = "bubblewrap",
        bundle: int = 1,
        exploration: Exploration | None = None,
        disjoint: bool = False,
    ) -> None:
        self.backend, self.bundle, self.exploration = backend, bundle, exploration
        self.disjoint = disjoint

    def diagnose(self, inputs: ImproverInputs) -> tuple[list[Diagnosis], Fallbacks]:
        return analyze(inputs.traces), {}

    def plan(
        self,
        inputs: ImproverInputs,
        diagnoses: list[Diagnosis],
        prevalences: Mapping[str, Mapping[str, float]],
    ) -> tuple[list[Plan], Fallbacks]:
        parents = [inputs.candidates[p] for p in inputs.parents]
        avoid, beliefs = harmful(inputs.library), beliefs_from(inputs.memory)
        plans = plan_all(
            parents,
            inputs.candidates,
            prevalences,
            inputs.scores,
            avoid,
            beliefs,
            self.bundle,
            self.exploration,
            self.disjoint,
        )
        return plans, {}

    def edit(
        self,
        plan: Plan,
        parent: Candidate,
        repo: HarnessRepo,
        existing: list[Candidate],
        new_id: str,
        epoch: int,
    ) -> Edit:
        return apply_plan(plan, parent, repo, existing, new_id, epoch, sandbox=self.backend)


@dataclass
class LLMImprover:
    """The three roles as model calls through one epoch's search account."""

    account: SearchAccount
    editor: LLMEditor = field(init=False)
    backend: str = "bubblewrap"
    memory_mb: int = 4096
    bundle: int = 1

    def __post_init__(self) -> None:
        self.editor = LLMEditor(self.account, self.account.improver, self.backend, self.memory_mb)

    def diagnose(self, inputs: ImproverInputs) -> tuple[list[Diagnosis], Fallbacks]:
        found = llm_analyzer.diagnose(self.account, inputs)
        return found.diagnoses, found.fallbacks

    def plan(
        self,
        inputs: ImproverInputs,
        diagnoses: list[Diagnosis],
        prevalences: Mapping[str, Mapping[str, float]],
    ) -> tuple[list[Plan], Fallbacks]:
        planned = llm_planner.plan_all(self.account, inputs, diagnoses, prevalences, self.bundle)
        return planned.plans, planned.fallbacks

    def edit(
        self,
        plan: Plan,
        parent: Candidate,
        repo: HarnessRepo,
        existing: list[Candidate],
        new_id: str,
        epoch: int,
    ) -> Edit:
        try:
            self.account.check_budget()
            unavailable = ""
        except SearchUnavailable as exc:
            unavailable = str(exc)
        return apply_plan_or_catalog(
            plan, parent, repo, existing, new_id, epoch, self.editor, unavailable, self.backend
        )
