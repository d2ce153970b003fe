"""Freezing synthesized tests in the run folder and grading rollouts with them.

`evolution.synthesizer` chooses the writer: `offline` checks (testsynth.offline) or an `llm`
executable test (testsynth.llm), which falls back to the offline checks with a recorded
reason when the model gives no test that runs. Every test is frozen by hash in the ledger.
With `evolution.judge_trajectory` (default) a pass also needs the trajectory judgement
(improvers/testsynth/judge.py) wherever the test compares no output's value (`needs_judgement`).

A test must be able to fail: it fails on the task's untouched workspace and passes on at least
one seed rollout (improvers/testsynth/gate.py), else the llm's is refused and the offline checks are
unscorable with that reason. A task whose test has no check, or cannot fail, is *unscorable*:
its test is frozen with the reason (so the decision is made once, at epoch 0), a console line
and `reports/synth_tests.json` say so, and its rollouts keep no verdict, which leaves them out
of every score.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from harnesspro.core.atomic import write_text_atomic
from harnesspro.improvers.account import SearchAccount, improver_price, make_improver_upstream
from harnesspro.improvers.testsynth.gate import gated, refusal, untouched_workspace
from harnesspro.improvers.testsynth.judge import judge
from harnesspro.improvers.testsynth.llm import ExecTest, passes, synthesize_llm
from harnesspro.improvers.testsynth.offline import SeedRollout, SynthTest, score, synthesize
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.run.disclosure import synthesizer_inputs
from harnesspro.sandbox import make_sandbox
from harnesspro.sandbox.contract import Limits, Sandbox
from harnesspro.sandbox.snapshot import Snapshot, as_snapshot

FrozenTest = SynthTest | ExecTest


class FrozenTestChanged(RuntimeError):
    """A frozen test file no longer matches the hash recorded when it was frozen."""


def checks_sandbox(ctx: RunContext) -> Sandbox:
    """The sandbox synthesized tests run in: the run's backend and limits."""
    return make_sandbox(ctx.config.sandbox.backend, Limits(memory_mb=ctx.config.sandbox.memory_mb))


def seed_rollouts(ctx: RunContext, task_id: str) -> list[SeedRollout]:
    """The seed's rollouts on a task, infrastructure faults left out (no work was done)."""
    rows = ctx.ledger.rollouts()
    rows = rows[(rows["candidate_id"] == SEED_ID) & (rows["task_id"] == task_id)]
    keys = rows[rows["status"] != "infra_error"]["key"]
    return [SeedRollout(ctx.run.workspace(k), ctx.run.trajectory(k)) for k in keys]


@contextmanager
def synthesizer_account(ctx: RunContext) -> Iterator[SearchAccount | None]:
    """The search-cost account of the llm synthesizer (epoch 0, `search/epoch-0/`, the
    improver model and the run's improver budget); None in offline mode."""
    if ctx.config.evolution.synthesizer != "llm":
        yield None
        return
    improver = ctx.config.evolution.improver_model
    account = SearchAccount(
        make_improver_upstream(improver, ctx.model_url),
        improver,
        improver_price(ctx.config),
        ctx.ledger,
        0,
        ctx.run.root / "search" / "epoch-0",
        ctx.config.budget.max_improver_dollars,
        ctx.config.gateway.retry_policy(),
    )
    with account:
        yield account


def write_test(
    ctx: RunContext, task_id: str, account: SearchAccount | None
) -> tuple[FrozenTest, str]:
    """One task's test: the llm's when asked for, it runs and it can fail (see
    improvers/testsynth/gate.py),
    else the offline checks, unscorable with the reason when they cannot fail; and a line
    saying why the llm's was not used ('' when it was, or was not asked for)."""
    task = ctx.tasks[task_id]
    seed = seed_rollouts(ctx, task_id)
    sandbox = checks_sandbox(ctx)
    untouched = untouched_workspace(task, sandbox)
    workspaces = [as_snapshot(r.workspace) for r in seed]
    note = ""
    if account is not None and seed:
        inputs = synthesizer_inputs(ctx, task_id)
        written = synthesize_llm(inputs, workspaces, account, sandbox)
        if isinstance(written, ExecTest):
            refused = refusal(written, untouched, workspaces, sandbox)
            if not refused:
                return written, ""
            written = f"its test was refused: {refused}"
        note = f"llm synthesizer: {task_id}: {written}; using the offline checks"
    test = synthesize(task_id, task.instruction, task.workdir, seed, sandbox)
    return gated(test, untouched, workspaces, sandbox), note


def freeze_tests(ctx: RunContext, task_ids: Iterable[str]) -> tuple[str, ...]:
    """Synthesize one test per task of `task_ids` from the seed's rollouts on it, once per
    run (a task already frozen keeps its test); lines for the run's console."""
    frozen = ctx.ledger.frozen_tests()
    todo = [t for t in task_ids if t not in frozen]
    notes: list[str] = []
    with synthesizer_account(ctx) as account:
        for task_id in todo:
            test, note = write_test(ctx, task_id, account)
            notes += [note] if note else []
            path = ctx.run.synth_test(task_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(test.to_json())
            ctx.ledger.freeze_test(task_id, test.sha256, str(path.relative_to(ctx.run.root)))
            if test.unscorable:
                notes.append(f"unscorable: {task_id}: {test.unscorable}")
    write_summary(ctx)
    return tuple(notes)


def parse_test(text: str) -> FrozenTest:
    """A frozen test from its JSON, by its `mode`."""
    if json.loads(text).get("mode") == "llm":
        return ExecTest.from_json(text)
    return SynthTest.from_json(text)


def load_frozen(ctx: RunContext) -> dict[str, FrozenTest]:
    """The frozen tests, each checked against its recorded hash."""
    return _load(ctx, ctx.ledger.frozen_tests())


def load_current(ctx: RunContext) -> dict[str, FrozenTest]:
    """The tests rollouts are graded with: each task's refinement where one is recorded
    (evaluation/refinement.py), else its frozen test; each checked against its hash."""
    return load_frozen(ctx) | _load(ctx, ctx.ledger.refined_tests())


def _load(ctx: RunContext, recorded: Mapping[str, tuple[str, str]]) -> dict[str, FrozenTest]:
    tests = {}
    for task_id, (digest, rel) in recorded.items():
        test = parse_test((ctx.run.root / rel).read_text())
        if test.sha256 != digest:
            raise FrozenTestChanged(
                f"{ctx.run.root / rel}: changed after it was frozen; restore it, or start a "
                "new run folder."
            )
        tests[task_id] = test
    return tests


def summary(test: FrozenTest) -> dict[str, object]:
    """One frozen test in the report: its mode, what it checks, why it cannot score."""
    if isinstance(test, ExecTest):
        return {"mode": "llm", "kind": test.kind, "seed_verdicts": list(test.seed_verdicts)}
    kinds = Counter(c.kind for c in test.checks)
    return {
        "mode": "offline",
        "checks": len(test.checks),
        "by_kind": dict(sorted(kinds.items())),
        "unscorable": test.unscorable,
    }


def write_summary(ctx: RunContext) -> None:
    """reports/synth_tests.json: every task's current test (its refinement by search
    consensus, else its frozen test): mode, checks by kind, and the unscorable tasks (left
    out of scoring) with their reasons."""
    tests = load_current(ctx)
    body = {
        "tests": {t: summary(test) for t, test in sorted(tests.items())},
        "unscorable": {t: test.unscorable for t, test in sorted(tests.items()) if test.unscorable},
    }
    folder = ctx.run.reports()
    folder.mkdir(parents=True, exist_ok=True)
    write_text_atomic(folder / "synth_tests.json", json.dumps(body, indent=2) + "\n")


def grade(test: FrozenTest, snapshot: Snapshot, sandbox: Sandbox) -> bool:
    """A rollout's verdict by its task's frozen test."""
    if isinstance(test, ExecTest):
        return passes(test, snapshot, sandbox)
    return score(test, snapshot, sandbox)


@dataclass(frozen=True)
class PendingRollout:
    """A rollout with no verdict yet, as the score step reads it."""

    key: str
    task_id: str
    chat_log: str
    """The gateway's chat log: what the judgement reads (never the harness's trajectory)."""
    status: str
    workspace: Snapshot | None  # None when only the judgement scores (no-synth)


def needs_judgement(test: FrozenTest) -> bool:
    """Whether the trajectory judgement is a condition of a pass: unless the test is offline
    checks that compare an output's value (then how the work ended adds nothing the values do
    not show, and a judgement that fails a rollout whose values are right is wrong)."""
    return not (isinstance(test, SynthTest) and test.sees_values)


def verdicts(
    pending: Iterable[PendingRollout],
    tests: Mapping[str, FrozenTest],
    sandbox: Sandbox,
    judged: bool,
    judge_only: bool = False,
) -> dict[str, bool]:
    """Verdicts of pending rollouts: by the task's frozen test (and, when `judged`, the
    trajectory judgement as well), or by the judgement alone (`judge_only`: the no-synth
    ablation). A rollout of a task with no scorable test gets none."""
    if judge_only:
        return {r.key: judge(r.chat_log, r.status) for r in pending}
    return {
        r.key: (not judged or not needs_judgement(tests[r.task_id]) or judge(r.chat_log, r.status))
        and grade(tests[r.task_id], r.workspace or Snapshot(), sandbox)
        for r in pending
        if r.task_id in tests
    }
