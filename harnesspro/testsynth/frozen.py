"""Freezing synthesized tests in the run folder and grading rollouts with them.

A task whose test has no check is *unscorable*: its test is frozen with the reason (so the
decision is made once, at epoch 0), a console line and `reports/unscorable.json` say so, and
its rollouts keep no verdict, which leaves them out of every score.
"""

from __future__ import annotations

import json

from harnesspro.context import SEED_ID, RunContext
from harnesspro.sandbox import Limits, Sandbox, make_sandbox
from harnesspro.testsynth.offline import SeedRollout, SynthTest, score, synthesize


class FrozenTestChanged(RuntimeError):
    """A frozen test file no longer matches the hash recorded when it was frozen."""


def checks_sandbox(ctx: RunContext) -> Sandbox:
    """The sandbox commands of synthesized tests run in: the run's backend and limits."""
    return make_sandbox(ctx.config.sandbox.backend, Limits(memory_mb=ctx.config.sandbox.memory_mb))


def seed_rollouts(ctx: RunContext, task_id: str) -> list[SeedRollout]:
    """The seed's rollouts on a task, infrastructure faults left out (no work was done)."""
    rows = ctx.ledger.rollouts()
    rows = rows[(rows["candidate_id"] == SEED_ID) & (rows["task_id"] == task_id)]
    keys = rows[rows["status"] != "infra_error"]["key"]
    return [SeedRollout(ctx.run.workspace(k), ctx.run.trajectory(k)) for k in keys]


def freeze_tests(ctx: RunContext) -> None:
    """Synthesize one test per coreset task from the seed's rollouts, once per run."""
    frozen = ctx.ledger.frozen_tests()
    sandbox = checks_sandbox(ctx)
    for task_id in ctx.splits.coreset:
        if task_id in frozen:
            continue
        task = ctx.tasks[task_id]
        seed = seed_rollouts(ctx, task_id)
        test = synthesize(task_id, task.instruction, task.workdir, seed, sandbox)
        path = ctx.run.synth_test(task_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(test.to_json())
        ctx.ledger.freeze_test(task_id, test.sha256, str(path.relative_to(ctx.run.root)))
        if test.unscorable:
            ctx.console.print(f"  unscorable: {task_id}: {test.unscorable}", markup=False)
    write_unscorable(ctx)


def load_frozen(ctx: RunContext) -> dict[str, SynthTest]:
    """The frozen tests, each checked against its recorded hash."""
    tests = {}
    for task_id, (digest, rel) in ctx.ledger.frozen_tests().items():
        test = SynthTest.from_json((ctx.run.root / rel).read_text())
        if test.sha256 != digest:
            raise FrozenTestChanged(f"{ctx.run.root / rel}: changed after it was frozen.")
        tests[task_id] = test
    return tests


def unscorable(ctx: RunContext) -> dict[str, str]:
    """Task id -> why no test could be derived for it."""
    return {t: test.unscorable for t, test in load_frozen(ctx).items() if test.unscorable}


def write_unscorable(ctx: RunContext) -> None:
    """reports/unscorable.json: the tasks left out of scoring and why."""
    folder = ctx.run.reports()
    folder.mkdir(parents=True, exist_ok=True)
    body = json.dumps(unscorable(ctx), indent=2, sort_keys=True)
    (folder / "unscorable.json").write_text(body + "\n")


def score_pending(ctx: RunContext) -> None:
    """Grade every rollout that has no verdict yet with its task's frozen test; rollouts of
    unscorable tasks keep none."""
    tests = {t: test for t, test in load_frozen(ctx).items() if not test.unscorable}
    rollouts = ctx.ledger.rollouts()
    pending = rollouts[rollouts["pass"].isna() & rollouts["task_id"].isin(list(tests))]
    sandbox = checks_sandbox(ctx)
    verdicts = {
        key: score(tests[task_id], ctx.run.workspace(key), sandbox)
        for key, task_id in zip(pending["key"], pending["task_id"], strict=True)
    }
    ctx.ledger.set_passes(verdicts)
