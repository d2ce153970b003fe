"""Harness editor (catalog mode): each plan in its own git worktree, validated, committed.

Validation failures get one retry with the validator's message (an LLM editor uses it; a
catalog edit is deterministic, so its retry mostly confirms the failure), then the candidate
is discarded with the reason recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harnesspro.harness.repo import HarnessRepo
from harnesspro.harness.validate import validate_harness
from harnesspro.mechanisms.catalog import CATALOG
from harnesspro.records import Candidate, Plan

EDIT_ATTEMPTS = 2  # the first try and one retry with the validator's message

# (worktree, plan, the validator's message from the previous attempt or '') -> None
EditFn = Callable[[Path, Plan, str], None]


@dataclass(frozen=True)
class Edit:
    """What became of a plan: a new or existing candidate, or a discard reason."""

    plan: Plan
    candidate: Candidate | None
    new: bool
    note: str = ""


def catalog_edit(worktree: Path, plan: Plan, feedback: str) -> None:
    """Apply the plan's catalog mechanism (feedback cannot change a deterministic edit)."""
    CATALOG[plan.mechanism].apply(worktree)


def _validate(worktree: Path, plan: Plan, seed: Path) -> str:
    problem = validate_harness(worktree, seed)
    if not problem and plan.mechanism in CATALOG:
        problem = CATALOG[plan.mechanism].validate(worktree)
    return problem


def _message(plan: Plan, parent: Candidate) -> str:
    return (
        f"{plan.directive}: {plan.mechanism}\n\n{plan.rationale}\n\n"
        f"predicted pass {plan.predicted_pass:+.3f}, cost {plan.predicted_cost:+.1%}\n"
        f"parent {parent.id} ({parent.commit[:10]})"
    )


def apply_plan(
    plan: Plan,
    parent: Candidate,
    repo: HarnessRepo,
    existing: list[Candidate],
    new_id: str,
    epoch: int,
    edit: EditFn = catalog_edit,
) -> Edit:
    """Apply one plan; identical trees are deduplicated against `existing`."""
    for c in existing:
        if c.parent == parent.id and c.mechanism == plan.mechanism:
            return Edit(plan, c, new=False, note="made in an earlier attempt of this run")
    feedback = ""
    for _ in range(EDIT_ATTEMPTS):
        worktree = repo.start_candidate(new_id, parent.commit)
        edit(worktree, plan, feedback)
        feedback = _validate(worktree, plan, repo.root)
        if not feedback:
            break
        repo.discard(new_id)
    else:
        return Edit(plan, None, new=False, note=f"discarded: {feedback}")
    commit, tree = repo.commit_candidate(new_id, _message(plan, parent))
    twin = next((c for c in existing if c.tree == tree), None)
    if twin is not None:
        repo.discard(new_id)
        return Edit(plan, twin, new=False, note=f"same tree as {twin.id}")
    child = Candidate(new_id, commit, tree, parent.id, plan.directive, plan.mechanism, epoch)
    return Edit(plan, child, new=True)
