"""Changes the smoke tasks could not show in effect (editor/apply.py: `UNPROVEN`) are judged on
the coreset's first attempts before the full G is spent on them: each such child runs attempt
0 of every coreset task, and is kept when one of those rollouts shows a request shape or a
hook event its parent's rollouts of that task never showed (or lacks one they all showed;
harness/effect.py: `coreset_difference`). Otherwise it is discarded with the reason: it is
left incomplete (never compared, never selected), its commit says why, and so does the
console.
"""

from __future__ import annotations

from harnesspro.core.records import Candidate
from harnesspro.evaluation.engine import Evaluated
from harnesspro.evaluation.rollouts import evaluate
from harnesspro.harness.effect import Signature, coreset_difference, signature_of
from harnesspro.improvers.editor.apply import UNPROVEN
from harnesspro.run.context import RunContext

DISCARDED = (
    "discarded: no observable effect on the smoke tasks nor on the coreset's first attempts "
    "(the same request shapes and hook events as its parent)"
)


def unproven_children(ctx: RunContext, epoch: int, children: list[Candidate]) -> list[Candidate]:
    """The epoch's children whose edit was committed unproven."""
    plans = ctx.ledger.plans()
    rows = plans[(plans["epoch"] == epoch) & (plans["note"].fillna("") == UNPROVEN)]
    marked = set(rows["child_id"].dropna())
    return [c for c in children if c.id in marked]


def rollout_signatures(ctx: RunContext, candidate_id: str, task_id: str) -> list[Signature]:
    """The candidate's coreset rollouts of a task, as request shapes and harness events."""
    rows = ctx.ledger.rollouts()
    mine = rows[
        (rows["candidate_id"] == candidate_id)
        & (rows["task_id"] == task_id)
        & (rows["split"] == "coreset")
        & (rows["status"] != "infra_error")
    ]
    found = []
    for key in mine.sort_values("attempt")["key"]:
        gateway = ctx.run.rollout_dir(str(key)) / "gateway.jsonl"
        text = gateway.read_text() if gateway.is_file() else ""
        found.append(signature_of(text, ctx.run.trajectory(str(key))))
    return found


def shown_in_effect(ctx: RunContext, child: Candidate) -> str:
    """What the child's attempt-0 coreset rollouts show that its parent's do not ('' when
    nothing)."""
    assert child.parent is not None
    for task_id in ctx.splits.coreset:
        mine = rollout_signatures(ctx, child.id, task_id)
        theirs = rollout_signatures(ctx, child.parent, task_id)
        difference = coreset_difference(theirs, mine[0]) if mine else ""
        if difference:
            return f"{task_id}: {difference}"
    return ""


def screen_unproven(
    ctx: RunContext, epoch: int, children: list[Candidate], cap: int | None
) -> tuple[list[Candidate], Evaluated]:
    """The children to evaluate in full (the unproven ones shown in effect on the coreset's
    attempt 0, and every other), and what screening ran, with its console lines."""
    unproven = unproven_children(ctx, epoch, children)
    if not unproven:
        return children, Evaluated(0)
    done = evaluate(ctx, unproven, epoch, attempts=[0], cap=cap)
    dropped, notes = set(), list(done.notes)
    for child in unproven:
        shown = shown_in_effect(ctx, child)
        if shown:
            notes.append(f"{child.id} is in effect on the coreset's attempt 0: {shown}")
            continue
        dropped.add(child.id)
        notes.append(f"{child.id} {DISCARDED}")
        ctx.repo.annotate(child.commit, DISCARDED)
    kept = [c for c in children if c.id not in dropped]
    return kept, Evaluated(done.ran, done.skipped, tuple(notes))
