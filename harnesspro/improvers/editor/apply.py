"""Harness editor: each plan in its own git worktree, validated, committed.

Validation failures get one retry with the validator's message (an LLM editor uses it; a
catalog edit is deterministic, so its retry mostly confirms the failure), then the candidate
is discarded with the reason recorded. `apply_plan_or_catalog` falls back from an LLM editor
to the plan mechanism's catalog edit, and says so in the note and the commit message.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from harnesspro.core.records import Candidate, Plan
from harnesspro.harness.effect import NOT_IN_EFFECT, Signature, not_in_effect, signatures
from harnesspro.harness.mechanisms.catalog import members
from harnesspro.harness.mechanisms.genes import parts_in
from harnesspro.harness.repo import HarnessRepo
from harnesspro.harness.validate import checked

EDIT_ATTEMPTS = 2  # the first try and one retry with the validator's message
UNPROVEN = "in effect unproven on the smoke tasks: judged on the coreset's first attempts"
"""The note of a free-form change the smoke tasks cannot show in effect: it is committed, and
the orchestration judges it on the coreset's attempt 0 before spending the full G on it."""

# (worktree, plan, the validator's message from the previous attempt or '') -> None, or a
# line saying how the edit was made (it goes into the commit message)
EditFn = Callable[[Path, Plan, str], str | None]


@dataclass(frozen=True)
class Edit:
    """What became of a plan: a new or existing candidate, or a discard reason."""

    plan: Plan
    candidate: Candidate | None
    new: bool
    note: str = ""


def catalog_edit(worktree: Path, plan: Plan, feedback: str) -> None:
    """Apply each gene the plan names (a catalog mechanism's recipe, or a declared knob
    value) through the knobs the harness declares (feedback cannot change a deterministic
    edit)."""
    if plan.kind != "catalog":
        raise ValueError(f"{plan.mechanism} is a free-form plan: the catalog cannot edit it")
    genes = parts_in(plan.mechanism, worktree)
    if not genes:
        raise ValueError(
            f"{plan.mechanism} needs knobs this harness does not declare (harness.toml [[knob]])"
        )
    for gene in genes:
        gene.apply(worktree)


@functools.lru_cache(maxsize=64)
def _smoke_signatures(repo_root: Path, commit: str, sandbox: str) -> dict[str, Signature]:
    """The parent's smoke signatures, once per commit (the same harness gives the same)."""
    with tempfile.TemporaryDirectory(prefix="hp-parent-") as name:
        HarnessRepo(repo_root, repo_root / ".unused").export(commit, Path(name))
        return signatures(Path(name), sandbox)


def _validate(
    worktree: Path, plan: Plan, repo: HarnessRepo, parent: Candidate, sandbox: str
) -> str:
    """The gates: manifest and immutable paths, code, smoke rollout (in the run's `sandbox`
    backend), and the change in effect (each gene's own check - its knobs hold its values -
    for a bundle or a genome of several; for a free-form plan, or a genome with a gene
    another one overrode, an observable difference from the parent's rollouts on the smoke
    tasks)."""
    problem, smoke = checked(worktree, repo.root, sandbox=sandbox)
    if problem:
        return problem
    own = parts_in(plan.mechanism, worktree) if plan.kind == "catalog" else ()
    problem = "; ".join(filter(None, (g.validate(worktree) for g in own)))
    # A bundle's parts never override one another; a genome's may (high_effort+low_effort):
    # then, as any change, it is in effect when the smoke tasks show a difference.
    if own and (not problem or members(plan.mechanism)):
        return problem
    assert smoke is not None
    parent_sigs = _smoke_signatures(repo.root, parent.commit, sandbox)
    return not_in_effect(parent_sigs, signatures(worktree, sandbox, smoke))


def _message(plan: Plan, parent: Candidate, how: str | None = None) -> str:
    change = f"{plan.kind} change: {plan.change}\n\n" if plan.kind == "free" else ""
    return (
        f"{plan.directive}: {plan.mechanism}\n\n{change}{plan.rationale}\n\n"
        f"predicted pass {plan.predicted_pass:+.3f}, cost {plan.predicted_cost:+.1%}\n"
        f"parent {parent.id} ({parent.commit[:10]})" + (f"\nedit: {how}" if how else "")
    )


def apply_plan(
    plan: Plan,
    parent: Candidate,
    repo: HarnessRepo,
    existing: list[Candidate],
    new_id: str,
    epoch: int,
    edit: EditFn = catalog_edit,
    sandbox: str = "bubblewrap",
) -> Edit:
    """Apply one plan, validated in the `sandbox` backend; identical trees are deduplicated
    against `existing`."""
    for c in existing:
        if c.parent == parent.id and c.mechanism == plan.mechanism:
            return Edit(plan, c, new=False, note="made in an earlier attempt of this run")
    feedback, how, unproven = "", None, False
    for attempt in range(EDIT_ATTEMPTS):
        worktree = repo.start_candidate(new_id, parent.commit)
        try:
            how = edit(worktree, plan, feedback)
            feedback = _validate(worktree, plan, repo, parent, sandbox)
        except (OSError, ValueError, KeyError, TypeError) as exc:  # e.g. a file it needs is absent
            feedback = f"the edit failed: {exc.__class__.__name__}: {exc}"[:300]
        if feedback.startswith(NOT_IN_EFFECT) and attempt == EDIT_ATTEMPTS - 1:
            feedback, unproven = "", True  # the coreset's first attempts judge it
        if not feedback:
            break
        repo.discard(new_id)
    else:
        return Edit(
            plan, None, new=False, note=f"discarded: {feedback}" + (f" ({how})" if how else "")
        )
    commit, tree = repo.commit_candidate(new_id, _message(plan, parent, how))
    twin = next((c for c in existing if c.tree == tree), None)
    if twin is not None:
        repo.discard(new_id)
        note = f"same tree as {twin.id}" + (f" ({how})" if how else "")
        return Edit(plan, twin, new=False, note=note[:400])
    child = Candidate(new_id, commit, tree, parent.id, plan.directive, plan.mechanism, epoch)
    return Edit(plan, child, new=True, note=UNPROVEN if unproven else "")


def apply_plan_or_catalog(
    plan: Plan,
    parent: Candidate,
    repo: HarnessRepo,
    existing: list[Candidate],
    new_id: str,
    epoch: int,
    edit: EditFn,
    unavailable: str = "",
    sandbox: str = "bubblewrap",
) -> Edit:
    """`apply_plan` with `edit`; when that yields no candidate (or the LLM editor is
    `unavailable`, say why), the catalog edit of the plan's mechanism, with the LLM editor's
    failure recorded in the note and the commit message."""
    if unavailable:
        first = Edit(plan, None, new=False, note=unavailable)
    else:
        first = apply_plan(plan, parent, repo, existing, new_id, epoch, edit, sandbox)
    if first.candidate is not None or plan.kind != "catalog" or not members(plan.mechanism):
        return first
    failed = f"llm editor failed, {first.note}"[:400]

    def fallback(worktree: Path, plan: Plan, feedback: str) -> str:
        catalog_edit(worktree, plan, feedback)
        return f"catalog edit ({failed})"

    second = apply_plan(plan, parent, repo, existing, new_id, epoch, fallback, sandbox)
    return replace(
        second, note="; ".join(filter(None, [f"{failed}; catalog edit used", second.note]))
    )
