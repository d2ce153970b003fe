"""Refining the frozen tests from the rollouts the search already scored (search consensus).

After each score step, every offline frozen test is refined (improvers/testsynth/consensus.py)
from the task's search rollouts that are now scored: coreset and validation rollouts, no
infrastructure faults, never a held-out one. A refinement must still be able to fail, as the
gate asks of every test (testsynth/gate.py): it fails on the task's untouched workspace and
passes at least one voter, else the frozen test stands. So a task the seed never passed,
unscorable when frozen, becomes scorable once the search's rollouts agree on what it asks for.

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
from harnesspro.improvers.testsynth.consensus import Voter, candidates
from harnesspro.improvers.testsynth.facts import snapshot_facts
from harnesspro.improvers.testsynth.gate import untouched_workspace
from harnesspro.improvers.testsynth.judge import judge
from harnesspro.improvers.testsynth.offline import SynthTest
from harnesspro.run.context import RunContext
from harnesspro.sandbox.contract import Sandbox

SEARCH_SPLITS = ("coreset", "validation")


# Facts of a rollout's final working directory by (run folder, rollout key, reading): a
# rollout's files never change once recorded, and every score step refines again.
_FACTS: dict[tuple[str, str, str], dict[str, str]] = {}


def voter_facts(ctx: RunContext, key: str, test: SynthTest, sandbox: Sandbox) -> dict[str, str]:
    """The facts of one rollout's final working directory that `test`'s reading names."""
    memo = (str(ctx.run.root), key, repr(test.reading))
    if memo not in _FACTS:
        _FACTS[memo] = snapshot_facts(ctx.run.workspace(key), test.reading, sandbox)
    return _FACTS[memo]


_JUDGED: dict[tuple[str, str], bool] = {}


def judgement(ctx: RunContext, row: RolloutRow) -> bool:
    """The trusted judgement of one recorded rollout (its chat log and status never change)."""
    memo = (str(ctx.run.root), row.key)
    if memo not in _JUDGED:
        _JUDGED[memo] = judge(ctx.run.chat_log(row.key), row.status)
    return _JUDGED[memo]


def passes_on(test: SynthTest, facts: Mapping[str, str]) -> bool:
    """Whether facts of the test's own reading pass it (`offline.score` from known facts)."""
    checks = test.checks and not test.unscorable
    return bool(checks) and all(facts.get(c.aspect) == c.value for c in test.checks)


def refined_test(
    ctx: RunContext, test: SynthTest, rows: Sequence[RolloutRow], sandbox: Sandbox
) -> tuple[SynthTest, dict[str, dict[str, str]], dict[str, bool]]:
    """The refinement of one frozen test by the rows' rollouts (the frozen test itself when
    no refinement can fail and pass), with the rollouts' facts and judgements."""
    facts = {r.key: voter_facts(ctx, r.key, test, sandbox) for r in rows}
    judged = {r.key: judgement(ctx, r) for r in rows}
    tried = candidates(test, [Voter(facts[k], judged[k]) for k in facts])
    if not tried:
        return test, facts, judged
    untouched = snapshot_facts(
        untouched_workspace(ctx.tasks[test.task_id], sandbox), test.reading, sandbox
    )
    for refined in tried:
        if not passes_on(refined, untouched) and any(passes_on(refined, f) for f in facts.values()):
            return refined, facts, judged
    return test, facts, judged  # none could fail, or nothing passes them


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
        new, facts, judgements = refined_test(ctx, test, rows, sandbox)
        if new == current.get(task_id, test):
            continue
        judging = judged and needs_judgement(new)
        passes = {k: (not judging or judgements[k]) and passes_on(new, f) for k, f in facts.items()}
        if new.unscorable:
            ctx.ledger.clear_passes(list(facts))
        else:
            ctx.ledger.set_passes(passes)
        path = ctx.run.refined_test(task_id, new.sha256)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, new.to_json())
        ctx.ledger.refine_test(task_id, new.sha256, str(path.relative_to(ctx.run.root)))
        changed = True
    if changed:
        write_summary(ctx)
