"""Gates that real edits can pass: a hook that fires only after 6 tool calls, written by a
replayed editor session, is shown in effect on the fixed smoke tasks (the trivial one alone
cannot show it), accepted and measured; a change the smoke tasks cannot show is judged on the
coreset's first attempts, kept when its hook events show there and discarded when they do not."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from harnesspro.core import journal
from harnesspro.core.records import Candidate, Plan, RolloutResult, RolloutSpec, Usage
from harnesspro.evaluation.engine import rollout_key
from harnesspro.evolution.improve import record_effects, search_account
from harnesspro.evolution.unproven import DISCARDED, screen_unproven
from harnesspro.execution.gateway.upstream import ReplayUpstream
from harnesspro.harness.effect import (
    SMOKE,
    Signature,
    coreset_difference,
    effect_tasks,
    first_difference,
    not_in_effect,
    signatures,
)
from harnesspro.improvers.account import SearchAccount
from harnesspro.improvers.editor.apply import UNPROVEN, Edit, apply_plan_or_catalog
from harnesspro.improvers.editor.llm import LLMEditor
from harnesspro.run.book import rollout_settings
from harnesspro.run.context import RunContext, seed_template
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.checktask import validate_task
from harnesspro.tasks.loader import load_task, reference_steps
from tests.conftest import COMMANDS, llm_run, reply, tool_call, trajectory

Opened = tuple[RunContext, ReplayUpstream, SearchAccount]
SIX = "  on_tool_result: [{use: notice, after: 6, message: Check your progress against the task.}]"


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[Opened]:
    ctx = llm_run(tmp_path)
    upstream = ReplayUpstream([])
    with search_account(ctx, 1, upstream) as account:
        yield ctx, upstream, account


def plan(name: str, files: tuple[str, ...]) -> Plan:
    return Plan(
        "c000", "balanced", name, "llm planner: try it", 0.0, -0.1,
        kind="free", levers=("runtime hooks",), change=f"do {name}", files=files,
    )  # fmt: skip


def yaml_with(ctx: RunContext, line: str) -> str:
    lines = (ctx.repo.root / "harness.yaml").read_text().split("\n")
    return "\n".join(line if ln.startswith("  on_tool_result:") else ln for ln in lines)


def edit(ctx: RunContext, account: SearchAccount, the_plan: Plan) -> Edit:
    seed = ctx.candidates()["c000"]
    editor = LLMEditor(account, account.improver)
    made = apply_plan_or_catalog(the_plan, seed, ctx.repo, [seed], "c001", 1, editor)
    child = made.candidate
    assert child is not None, made.note
    ctx.ledger.record_edit(1, journal.edit_step(0), the_plan, child, child.id, made.note)
    return made


def record_child(ctx: RunContext, child: Candidate, attempts: range, hooked: bool) -> None:
    """The child's coreset rollouts by hand, under the keys evaluation would give them."""
    events = trajectory(COMMANDS).split("\n")
    if hooked:
        events.insert(3, json.dumps({"type": "hook", "step": 1, "ts": 0, "name": "notice"}))
    settings = rollout_settings(ctx)
    for task_id in ctx.splits.coreset:
        for attempt in attempts:
            key = rollout_key(settings, child, task_id, attempt)
            usage = Usage(uncached_input=800, cached_input=100, output=40)
            result = RolloutResult(key, "ok", usage, 0.008, 1.0, 5, None, "\n".join(events), "", {})
            spec = RolloutSpec(key, child.id, task_id, attempt, 1)
            ctx.ledger.record_rollout(spec, result, ctx.run.save_rollout(result), "coreset")
            ctx.ledger.set_passes({key: True})


def test_a_hook_after_six_tool_calls_is_accepted_and_measured(opened: Opened) -> None:
    ctx, upstream, account = opened
    upstream.replies += [
        tool_call("write_file", 0, path="harness.yaml", content=yaml_with(ctx, SIX)),
        reply("A progress notice after the sixth tool call."),
    ]
    made = edit(ctx, account, plan("notice-after-six", ("harness.yaml",)))
    assert made.new and made.note == "", made.note  # in effect on the smoke tasks
    child = made.candidate
    assert child is not None
    # The trivial smoke task alone (2-3 tool calls) cannot show it: that gate discarded it.
    with_hook = Path(ctx.run.root) / "child"
    ctx.repo.export(child.commit, with_hook)
    parent, mine = signatures(seed_template(), "bubblewrap"), signatures(with_hook, "bubblewrap")
    assert first_difference(parent[SMOKE], mine[SMOKE]) == ""
    assert not_in_effect({SMOKE: parent[SMOKE]}, {SMOKE: mine[SMOKE]})
    assert not_in_effect(parent, mine) == ""
    assert "hook:notice" in mine["many_calls"].events
    # Measured: its coreset rollouts get a verdict against the parent's.
    record_child(ctx, child, range(2), hooked=True)
    record_effects(ctx, 1)
    row = ctx.ledger.plans().set_index("child_id").loc[child.id]
    assert row["verdict"] in ("helped", "hurt", "no effect") and row["measured_pass"] == 0.5
    shutil.rmtree(with_hook)


def test_an_unproven_change_is_kept_when_its_hook_shows_on_the_coreset(opened: Opened) -> None:
    ctx, upstream, account = opened
    write = tool_call("write_file", 0, path="NOTES.md", content="notes\n")
    upstream.replies += [write, reply("Wrote a note."), write, reply("Again.")]
    made = edit(ctx, account, plan("notes", ("NOTES.md",)))
    assert made.note == UNPROVEN and made.candidate is not None
    record_child(ctx, made.candidate, range(1), hooked=True)  # attempt 0 only
    kept, screened = screen_unproven(ctx, 1, [made.candidate], None)
    assert kept == [made.candidate] and screened.ran == 0
    assert "hook:notice" in screened.notes[0] and "in effect on the coreset" in screened.notes[0]


def test_an_unproven_change_without_effect_on_the_coreset_is_discarded(opened: Opened) -> None:
    ctx, upstream, account = opened
    write = tool_call("write_file", 0, path="NOTES.md", content="notes\n")
    upstream.replies += [write, reply("Wrote a note."), write, reply("Again.")]
    made = edit(ctx, account, plan("notes", ("NOTES.md",)))
    child = made.candidate
    assert child is not None
    record_child(ctx, child, range(1), hooked=False)  # the parent's very events
    kept, screened = screen_unproven(ctx, 1, [child], None)
    assert kept == [] and screened.notes == (f"{child.id} {DISCARDED}",)
    assert DISCARDED in str(ctx.repo.repo.git.notes("show", child.commit))
    assert child.id in ctx.incomplete()  # attempt 0 only: never compared or selected


@pytest.mark.parametrize("task_dir", effect_tasks(), ids=[p.name for p in effect_tasks()])
def test_each_effect_task_is_a_valid_task_that_exercises_its_kind(task_dir: Path) -> None:
    task = load_task(task_dir)
    result = validate_task(task, Bubblewrap())
    assert result.status == "ok", result.reason
    assert result.idle is not None and not result.idle.passed
    assert result.reference is not None and result.reference.passed
    steps = reference_steps(task)
    if task_dir.name == "many_calls":
        assert len(steps) >= 14  # past the reference medium harness's first notice (14)
    if task_dir.name == "long_output":
        log = (task_dir / "environment" / "workspace" / "app.log").read_text()
        assert len(log) > 4 * 2000  # past the compress hook's usual max_chars
    if task_dir.name == "failing_commands":
        assert steps[0] == "bash /workspace/check.sh"  # fails before the fix


def shape(system: str = "s", params: str = "p") -> str:
    return json.dumps({"first_user": "u", "params": params, "system": system, "tools": "t"})


def test_coreset_difference_on_hand_built_cases() -> None:
    parent = [
        Signature((shape(),), ("tool_call:ls", "hook:profile")),
        Signature((shape(),), ("tool_call:cat x", "hook:profile", "hook:compress")),
    ]
    # a model samples other commands: not a difference
    sampled = Signature((shape(),), ("tool_call:pwd", "hook:profile"))
    assert coreset_difference(parent, sampled) == ""
    assert coreset_difference(parent, Signature((shape(params="q"),), ("hook:profile",))) == (
        "a request shape its parent never sent (params)"
    )
    new = coreset_difference(parent, Signature((shape(),), ("hook:profile", "hook:notice")))
    assert new == "harness event 'hook:notice', never in its parent's rollouts"
    # a hook every parent rollout shows is gone; one only some show may be absent
    assert coreset_difference(parent, Signature((shape(),), ("tool_call:ls",))) == (
        "no harness event 'hook:profile', which every parent rollout shows"
    )
    assert coreset_difference([], Signature((shape(),), ())) == ""
