"""Freezing synthesized tests in the run folder and grading rollouts with them."""

from __future__ import annotations

from harnesspro.context import SEED_ID, RunContext
from harnesspro.testsynth.offline import SeedRollout, SynthTest, score, synthesize


class FrozenTestChanged(RuntimeError):
    """A frozen test file no longer matches the hash recorded when it was frozen."""


def freeze_tests(ctx: RunContext) -> None:
    """Synthesize one test per coreset task from the seed's rollouts, once per run."""
    frozen = ctx.ledger.frozen_tests()
    rollouts = ctx.ledger.rollouts()
    seed_rows = rollouts[rollouts["candidate_id"] == SEED_ID]
    for task_id in ctx.splits.coreset:
        if task_id in frozen:
            continue
        task = ctx.tasks[task_id]
        keys = seed_rows[seed_rows["task_id"] == task_id]["key"]
        seed = [SeedRollout(ctx.run.workspace(k), ctx.run.trajectory(k)) for k in keys]
        test = synthesize(task_id, task.instruction, task.workdir, seed)
        path = ctx.run.synth_test(task_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(test.to_json())
        ctx.ledger.freeze_test(task_id, test.sha256, str(path.relative_to(ctx.run.root)))


def load_frozen(ctx: RunContext) -> dict[str, SynthTest]:
    """The frozen tests, each checked against its recorded hash."""
    tests = {}
    for task_id, (digest, rel) in ctx.ledger.frozen_tests().items():
        test = SynthTest.from_json((ctx.run.root / rel).read_text())
        if test.sha256 != digest:
            raise FrozenTestChanged(f"{ctx.run.root / rel}: changed after it was frozen.")
        tests[task_id] = test
    return tests


def score_pending(ctx: RunContext) -> None:
    """Grade every rollout that has no verdict yet with its task's frozen test."""
    tests = load_frozen(ctx)
    rollouts = ctx.ledger.rollouts()
    pending = rollouts[rollouts["pass"].isna() & rollouts["task_id"].isin(list(tests))]
    verdicts = {
        key: score(tests[task_id], ctx.run.workspace(key))
        for key, task_id in zip(pending["key"], pending["task_id"], strict=True)
    }
    ctx.ledger.set_passes(verdicts)
