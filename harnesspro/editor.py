"""Harness editor (catalog mode): each plan in its own git worktree, validated, committed."""

from __future__ import annotations

from dataclasses import dataclass

from harnesspro.harness.repo import HarnessRepo
from harnesspro.harness.validate import validate_harness
from harnesspro.mechanisms.catalog import CATALOG
from harnesspro.records import Candidate, Plan


@dataclass(frozen=True)
class Edit:
    """What became of a plan: a new or existing candidate, or a discard reason."""

    plan: Plan
    candidate: Candidate | None
    new: bool
    reason: str = ""


def apply_plan(
    plan: Plan,
    parent: Candidate,
    repo: HarnessRepo,
    existing: list[Candidate],
    new_id: str,
    epoch: int,
) -> Edit:
    """Apply one plan; identical trees are deduplicated against `existing`."""
    for c in existing:
        if c.parent == parent.id and c.mechanism == plan.mechanism:
            return Edit(plan, c, new=False)  # resumed run: already made
    candidate_id = new_id
    worktree = repo.start_candidate(candidate_id, parent.commit)
    CATALOG[plan.mechanism].apply(worktree)
    problem = validate_harness(worktree, repo.root)
    if problem:
        repo.discard(candidate_id)
        return Edit(plan, None, new=False, reason=problem)
    message = (
        f"{plan.directive}: {plan.mechanism}\n\n{plan.rationale}\n\n"
        f"predicted pass {plan.predicted_pass:+.3f}, cost {plan.predicted_cost:+.1%}\n"
        f"parent {parent.id} ({parent.commit[:10]})"
    )
    commit, tree = repo.commit_candidate(candidate_id, message)
    twin = next((c for c in existing if c.tree == tree), None)
    if twin is not None:
        repo.discard(candidate_id)
        return Edit(plan, twin, new=False, reason=f"same tree as {twin.id}")
    child = Candidate(candidate_id, commit, tree, parent.id, plan.directive, plan.mechanism, epoch)
    return Edit(plan, child, new=True)
