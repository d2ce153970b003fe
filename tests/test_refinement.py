"""Search consensus: hand-counted votes, and a task the seed never passes made scorable by the
search's rollouts through the score step (frozen test kept, refinement recorded, verdicts)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console

from harnesspro.core.config import load_config
from harnesspro.core.records import RolloutResult, RolloutSpec, Usage
from harnesspro.evaluation.scoring import freeze_tests, load_current, load_frozen
from harnesspro.evolution.score_step import score_pending
from harnesspro.improvers.testsynth.check import INSTRUCTION, SEARCH, SEED, Check
from harnesspro.improvers.testsynth.consensus import Voter, candidates, refine
from harnesspro.improvers.testsynth.facts import Reading, read_instruction
from harnesspro.improvers.testsynth.gate import gated, untouched_workspace
from harnesspro.improvers.testsynth.offline import SynthTest
from harnesspro.run.context import RunContext
from harnesspro.run.folder import RunFolder
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.snapshot import Snapshot
from harnesspro.tasks.loader import builtin_suite_dir
from tests.conftest import tiny_config

BASE = SynthTest("t", Reading("/workspace", ("out.txt",)), (Check("exists:out.txt", "True"),))


def voters(*contents: str | None, judged: bool = True) -> list[Voter]:
    return [Voter({} if c is None else {"content:out.txt": c}, judged) for c in contents]


def search_checks(test: SynthTest) -> dict[str, tuple[str, int, int]]:
    return {c.aspect: (c.value, c.support, c.of) for c in test.checks if c.kind == SEARCH}


def test_a_clear_majority_of_those_who_answered_becomes_a_check() -> None:
    # 5 of 6 answers agree; the two rollouts that wrote nothing are no answer
    refined = refine(BASE, voters("a", "a", "a", "a", "a", "b", None, None))
    assert search_checks(refined) == {"content:out.txt": ("a", 5, 6)}
    assert BASE.checks[0] in refined.checks  # the frozen test's own check is kept as is


def test_too_few_or_split_voters_abstain() -> None:
    assert refine(BASE, voters("a", "a", "a")) == BASE  # 3 < MIN_SUPPORT
    assert refine(BASE, voters("a", "a", "a", "a", "b", "b", "b", "b")) == BASE  # 4 of 8: no
    assert search_checks(refine(BASE, voters("a", "a", "a", "a", "b", "b", "b")))  # 4 of 7


def test_the_judged_clean_voters_decide_when_there_are_enough() -> None:
    clean = voters("a", "a", "a", "a")
    noisy = voters("b", "b", "b", "b", "b", "b", judged=False)
    assert search_checks(refine(BASE, [*clean, *noisy])) == {"content:out.txt": ("a", 4, 4)}
    # fewer than four clean ones: everyone votes, and "b" has 6 of 9
    few = voters("a", "a", "a")
    assert search_checks(refine(BASE, [*few, *noisy])) == {"content:out.txt": ("b", 6, 9)}


def test_an_empty_output_is_no_answer_and_an_open_aspect_only_is_refined() -> None:
    empty = [Voter({"nonempty:out.txt": "False", "lines:out.txt": "0"}, True)] * 9
    full = [Voter({"nonempty:out.txt": "True", "lines:out.txt": "2"}, True)] * 4
    assert search_checks(refine(BASE, [*empty, *full])) == {
        "lines:out.txt": ("2", 4, 4),
        "nonempty:out.txt": ("True", 4, 4),
    }
    checked = SynthTest("t", BASE.reading, (Check("content:out.txt", "z"),))
    assert refine(checked, voters("a", "a", "a", "a", "a")) == checked


def record(
    ctx: RunContext, key: str, candidate: str, task_id: str, files: Snapshot, split: str = "coreset"
) -> None:
    result = RolloutResult(key, "ok", Usage(100, 0, 10), 0.01, 1.0, 1, None, "", "", files)
    artifacts = ctx.run.save_rollout(result)
    ctx.ledger.record_rollout(RolloutSpec(key, candidate, task_id, 0, 0), result, artifacts, split)


@dataclass(frozen=True)
class HardTask:
    """A run whose seed left one coreset task undone (0 of G), with workspaces to record."""

    ctx: RunContext
    task_id: str
    output: str
    answer: Snapshot
    wrong: Snapshot


def hard_task(tmp_path: Path, suite: Path | None = None) -> HardTask:
    tasks = {} if suite is None else {"tasks": {"suite": str(suite), "test_fraction": 0.1}}
    evolution = {"epochs": 1, "rollouts_per_task": 2}
    config = tiny_config(tmp_path, evolution=evolution, **tasks)
    ctx = RunContext.open(load_config(config), RunFolder(tmp_path / "run"), Console(quiet=True))
    ctx.seed()
    task_id = next(
        t
        for t in ctx.splits.coreset
        if read_instruction(ctx.tasks[t].instruction, ctx.tasks[t].workdir).outputs
    )
    task = ctx.tasks[task_id]
    outputs = read_instruction(task.instruction, task.workdir).outputs
    untouched = untouched_workspace(task, Bubblewrap())
    written = {**untouched.files, **{o: f"{o}\n".encode() for o in outputs}}
    answer = Snapshot({**written, outputs[-1]: b"the answer\n"}, dirs=untouched.dirs)
    wrong = Snapshot({**written, outputs[-1]: b"a wrong answer\n"}, dirs=untouched.dirs)
    for n in range(2):  # the seed wrote nothing: 0 of G
        record(ctx, f"seed{n}", "c000", task_id, untouched)
    freeze_tests(ctx, [task_id])
    return HardTask(ctx, task_id, outputs[-1], answer, wrong)


def test_a_task_the_seed_never_passes_becomes_scorable(tmp_path: Path) -> None:
    run = hard_task(tmp_path)
    ctx, task_id = run.ctx, run.task_id
    frozen = load_frozen(ctx)[task_id]
    # the seed passed none of its rollouts: frozen with the instruction's checks alone, which
    # fail on the untouched workspace (so the seed, which wrote nothing, fails them)
    assert not frozen.unscorable and frozen.checks
    assert {c.kind for c in frozen.checks} == {INSTRUCTION}

    for n in range(5):
        record(ctx, f"right{n}", "c001", task_id, run.answer)
    record(ctx, "wrong", "c002", task_id, run.wrong)
    score_pending(ctx)

    current = load_current(ctx)[task_id]
    assert isinstance(current, SynthTest) and not current.unscorable
    assert (f"content:{run.output}", 5, 6) in [
        (c.aspect, c.support, c.of) for c in current.checks if c.kind == SEARCH
    ]
    assert load_frozen(ctx)[task_id] == frozen  # the frozen test itself never changes
    _, rel = ctx.ledger.refined_tests()[task_id]
    stored = json.loads((ctx.run.root / rel).read_text())
    assert any(c.get("kind") == SEARCH for c in stored["checks"])
    passes = ctx.ledger.rollouts().set_index("key")["pass"]
    # the judgement plays no part: the refined test compares the output's value
    assert [passes[f"right{n}"] for n in range(5)] == [1] * 5
    assert passes["wrong"] == 0 and passes["seed0"] == 0 and passes["seed1"] == 0

    score_pending(ctx)  # nothing new: the same refinement, the same verdicts
    assert load_current(ctx)[task_id] == current
    assert ctx.ledger.rollouts().set_index("key")["pass"].equals(passes)


def test_consensus_never_reads_held_out_rollouts_official_tests_or_solutions(
    tmp_path: Path,
) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(builtin_suite_dir(), suite)
    (tmp_path / "a").mkdir()
    run = hard_task(tmp_path / "a", suite)
    for folder in suite.iterdir():  # official tests and solutions gone: nothing may need them
        for part in ("tests", "solution"):
            shutil.rmtree(folder / part, ignore_errors=True)
    for n in range(6):  # held-out rollouts that agree: they are no voters
        record(run.ctx, f"held{n}", "c001", run.task_id, run.answer, split="test")
    score_pending(run.ctx)
    assert not any(c.kind == SEARCH for c in load_current(run.ctx)[run.task_id].checks)
    assert run.task_id not in run.ctx.ledger.refined_tests()
    for n in range(5):  # search rollouts that agree: the test is refined without them
        record(run.ctx, f"right{n}", "c001", run.task_id, run.answer)
    score_pending(run.ctx)
    assert any(c.kind == SEARCH for c in load_current(run.ctx)[run.task_id].checks)
    assert run.ctx.ledger.rollouts().set_index("key")["pass"]["held0"] != 1


def test_a_test_that_could_not_score_falls_back_to_the_instruction_checks() -> None:
    said = Check("exists:out.txt", "True", INSTRUCTION)
    voted = Check("content:out.txt", "empty", SEED, 2, 2)  # what the failing seed wrote
    frozen = SynthTest("t", BASE.reading, (said, voted), "it passes on none of the seed's 2")
    # three answers that do not agree: no consensus, so the instruction's check alone
    tried = candidates(frozen, voters("a", "b", "c"))
    assert [t.checks for t in tried] == [(said,)] and not tried[0].unscorable
    # a scorable frozen test has no such fallback
    assert candidates(replace(frozen, unscorable=""), voters("a", "b", "c")) == []


def test_a_test_the_seed_never_passed_is_frozen_with_the_instruction_checks_alone() -> None:
    said = Check("exists:out.txt", "True", INSTRUCTION)
    voted = Check("exists:log.txt", "True", SEED, 2, 2)
    test = SynthTest("t", Reading("/workspace", ("out.txt", "log.txt")), (said, voted))
    nothing, logged = Snapshot({}), Snapshot({"log.txt": b"x\n"})
    sandbox = Bubblewrap()
    # the seed wrote neither file: refused ("passes on none"), so the instruction's check alone
    assert gated(test, nothing, [nothing, nothing], sandbox).checks == (said,)
    # a seed rollout that passes: the test as synthesized
    both = Snapshot({"out.txt": b"y\n", "log.txt": b"x\n"})
    assert gated(test, nothing, [both, logged], sandbox) == test
    # the instruction's check holds untouched: nothing left that asks for work
    kept = gated(test, Snapshot({"out.txt": b"y\n"}), [logged], sandbox)
    assert kept.checks == test.checks and "none of the seed's 1 rollouts" in kept.unscorable
