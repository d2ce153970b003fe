"""Refining the frozen tests from the rollouts the search already scored (search consensus).

After each score step, every offline frozen test is refined (improvers/testsynth/consensus.py)
from the task's search rollouts that are now scored: coreset and validation rollouts, no
infrastructure faults, never a held-out one. A refinement must still be able to fail: it fails
on the task's untouched workspace and passes at least one voter (testsynth/gate.py), else the
frozen test stands. So a task the seed never passed, unscorable when frozen, becomes scorable
once the search's rollouts agree on what it asks for.

When a task's refinement changes, every scored rollout of that task is graded again with it
(and with the trajectory judgement where that is a condition, `scoring.needs_judgement`), the
verdicts recorded, and only then the refinement written (`synth_tests/refined/TASK-HASH.json`,
its hash in the ledger): a crash in between leaves the old refinement recorded, so the resumed run
refines and grades again to the same verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harnesspro.core.atomic import write_text_atomic
from harnesspro.core.records import RolloutRow
from harnesspro.evaluation.scoring import needs_judgement, write_summary
from harnesspro.improvers.testsynth.consensus import Voter, refine
from harnesspro.improvers.testsynth.facts import snapshot_facts
from harnesspro.improvers.testsynth.gate import refusal, untouched_workspace
from harnesspro.improvers.testsynth.judge import judge
from harnesspro.improvers.testsynth.offline import SynthTest, score
from harnesspro.run.context import RunContext
from harnesspro.sandbox.contract import Sandbox
from harnesspro.sandbox.snapshot import Snapshot

SEARCH_SPLITS = ("coreset", "validation")


def refined_test(
    ctx: RunContext, test: SynthTest, rows: Sequence[RolloutRow], sandbox: Sandbox
) -> tuple[SynthTest, dict[str, Snapshot], dict[str, bool]]:
    """The refinement of one frozen test by the rows' rollouts (the frozen test itself when
    no refinement can fail and pass), with the rollouts' workspaces and judgements."""
    spaces = {r.key: ctx.run.workspace(r.key) for r in rows}
    judged = {r.key: judge(ctx.run.chat_log(r.key), r.status) for r in rows}
    voters = [Voter(snapshot_facts(spaces[k], test.reading, sandbox), judged[k]) for k in spaces]
    refined = refine(test, voters)
    if refined == test:
        return test, spaces, judged
    untouched = untouched_workspace(ctx.tasks[test.task_id], sandbox)
    if refusal(refined, untouched, list(spaces.values()), sandbox):
        return test, spaces, judged
    return refined, spaces, judged


def refine_tests(
    ctx: RunContext,
    frozen: Mapping[str, object],
    current: Mapping[str, object],
    sandbox: Sandbox,
    judged: bool,
) -> None:
    """Refine every offline frozen test from the scored search rollouts; where the refinement
    differs from the `current` test of the task, grade the task's rollouts again and record."""
    changed = False
    for task_id, test in sorted(frozen.items()):
        if not isinstance(test, SynthTest):
            continue
        rows = ctx.ledger.search_rollouts(task_id)
        new, spaces, judgements = refined_test(ctx, test, rows, sandbox)
        if new == current.get(task_id, test):
            continue
        judging = judged and needs_judgement(new)
        passes = {
            k: (not judging or judgements[k]) and score(new, spaces[k], sandbox) for k in spaces
        }
        if new.unscorable:
            ctx.ledger.clear_passes(list(spaces))
        else:
            ctx.ledger.set_passes(passes)
        path = ctx.run.refined_test(task_id, new.sha256)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, new.to_json())
        ctx.ledger.refine_test(task_id, new.sha256, str(path.relative_to(ctx.run.root)))
        changed = True
    if changed:
        write_summary(ctx)
