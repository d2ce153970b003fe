"""The `llm` improver on recorded replies: valid answers are used; malformed JSON and unknown
mechanisms are retried once, then the catalog takes over with a recorded reason; the editing
agent works in the sandbox and falls back to the catalog edit; every call is metered in the
search-cost account. Plus the deeper analyzer features, and one run against llama.cpp."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from harnesspro.core.records import ModelCall, Plan, Trace, Usage
from harnesspro.evolution.improve import improve, search_account
from harnesspro.evolution.strategies.expected_gain import ExpectedGain
from harnesspro.execution.gateway.upstream import ReplayUpstream
from harnesspro.harness.mechanisms.catalog import CATALOG, CONCISE_PROMPT
from harnesspro.improvers.account import SearchAccount
from harnesspro.improvers.analyzer import llm as llm_analyzer
from harnesspro.improvers.analyzer.rules import analyze, clusters
from harnesspro.improvers.analyzer.task_stats import task_stats, token_parts
from harnesspro.improvers.ask import load_prompt
from harnesspro.improvers.editor.apply import apply_plan_or_catalog
from harnesspro.improvers.editor.llm import LLMEditor
from harnesspro.improvers.planner import llm as llm_planner
from harnesspro.reports.search_costs import describe_search_costs, write_search_costs
from harnesspro.run.context import RunContext, seed_template
from harnesspro.run.disclosure import improver_inputs
from tests.conftest import COMMANDS, llm_run, reply, tool_call, trajectory

DATA = Path(__file__).parent / "data" / "improver_replay"


def catalog_files(mechanism: str, tmp_path: Path) -> dict[str, str]:
    """The files the catalog edit of `mechanism` changes or adds in the seed."""
    work = Path(tempfile.mkdtemp(dir=tmp_path)) / mechanism
    shutil.copytree(seed_template(), work, ignore=shutil.ignore_patterns("__pycache__"))
    before = {p: p.read_text() for p in work.rglob("*") if p.is_file()}
    CATALOG[mechanism].apply(work)
    return {
        str(p.relative_to(work)): p.read_text()
        for p in work.rglob("*")
        if p.is_file() and before.get(p) != p.read_text()
    }


def writes(files: dict[str, str]) -> list[dict[str, Any]]:
    """An editing agent's replies: write each file, then a summary."""
    calls = [
        tool_call("write_file", n, path=rel, content=t) for n, (rel, t) in enumerate(files.items())
    ]
    return [*calls, reply("Done: the mechanism is in place.")]


DIAGNOSES = {
    "diagnoses": [
        {
            "task_id": "TASK",
            "kind": "slow_start",
            "count": 2,
            "of": 2,
            "effect_pass": 0.0,
            "effect_cost": 0.3,
            "evidence": "k00 and k01 list the directory before reading",
        }
    ]
}
PLANS = [
    ("cost-first", "concise_prompt", 0.0, -0.3),
    ("balanced", "compress_output", 0.0, -0.2),
    ("performance-first", "verify_before_submit", 0.05, 0.1),
]


def plans_json(mechanisms: list[tuple[str, str, float, float]] = PLANS) -> str:
    return json.dumps(
        {
            "plans": [
                {"directive": d, "name": m, "levers": [CATALOG[m].lever],
                 "rationale": f"because {m}", "predicted_pass": p, "predicted_cost": c}
                for d, m, p, c in mechanisms
            ]
        }
    )  # fmt: skip


@pytest.fixture
def account(tmp_path: Path) -> Iterator[tuple[RunContext, ReplayUpstream, SearchAccount]]:
    """A run with seed rollouts and an open search account over an empty replay."""
    ctx = llm_run(tmp_path)
    upstream = ReplayUpstream([])
    with search_account(ctx, 1, upstream) as opened:
        yield ctx, upstream, opened


def test_valid_answers_are_used_end_to_end(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path)
    diagnoses = json.dumps(DIAGNOSES).replace("TASK", ctx.splits.coreset[0])
    replies = [reply(diagnoses), reply(f"Here you are:\n```json\n{plans_json()}\n```")]
    for _, mechanism, _, _ in PLANS:
        replies += writes(catalog_files(mechanism, tmp_path))
    upstream = ReplayUpstream(replies)
    children = improve(ctx, 1, ["c000"], upstream)

    assert [c.mechanism for c in children] == [m for _, m, _, _ in PLANS]
    found = ctx.ledger.diagnoses()
    assert list(found["kind"]) == ["slow_start"]  # the model's diagnosis, not the rules'
    plans = ctx.ledger.plans()
    assert all(r.startswith("llm planner: because") for r in plans["rationale"])
    assert set(plans["note"]) == {""}
    for child in children:  # git log reads as a lineage, naming who edited
        message = ctx.repo.repo.commit(child.commit).message
        assert f"{child.directive}: {child.mechanism}" in message
        assert "predicted pass" in message and "edit: llm editor (scripted) attempt 1" in message
    systems = [r["messages"][0]["content"].splitlines()[0] for r in upstream.requests]
    assert systems[0] == "# Role: trajectory analyzer (analyzer.v1)"
    assert systems[1] == "# Role: evolution planner (planner.v2)"
    assert set(systems[2:]) == {"# Role: harness editor (editor.v2)"}
    assert "tools" in upstream.requests[2] and "tools" not in upstream.requests[0]

    calls = ctx.ledger.search_calls()
    edits = sum(len(catalog_files(m, tmp_path)) + 1 for _, m, _, _ in PLANS)
    assert list(calls["role"]) == ["analyzer", "planner"] + ["editor"] * edits
    assert list(calls["note"][:2]) == ["used", "used"]
    assert (calls["status"] == 200).all() and (calls["uncached_input"] > 0).all()
    costs = pd.read_csv(ctx.run.reports() / "search_costs.csv")
    total = costs[costs["epoch"] == "total"].iloc[0]
    assert total["calls"] == 2 + edits and total["dollars"] == pytest.approx(calls["cost"].sum())
    assert set(costs["role"]) == {"analyzer", "planner", "editor", "all"}
    log = (ctx.run.root / "search" / "epoch-1" / "gateway.jsonl").read_text().splitlines()
    assert len(log) == 2 + edits and all("uncached_input" in json.loads(line) for line in log)


def test_malformed_json_is_retried_once_then_the_catalog_plans(
    account: tuple[RunContext, ReplayUpstream, SearchAccount],
) -> None:
    ctx, upstream, opened = account
    upstream.replies += [reply("Sure! Plans: cost-first -> concise_prompt"), reply("{plans: [}")]
    inputs = improver_inputs(ctx, 1, ["c000"])
    planned = llm_planner.plan_all(opened, inputs, [], {"c000": {}})

    assert len(upstream.requests) == 2  # one retry, no more
    retry = upstream.requests[1]["messages"][-1]["content"]
    assert "That answer was invalid: the reply is not a JSON object" in retry
    reason = planned.fallbacks["c000"]
    assert reason == "invalid answer after one retry: the reply is not a JSON object"
    assert [p.directive for p in planned.plans] == ["cost-first", "balanced", "performance-first"]
    prefix = f"catalog fallback (llm planner: {reason})"
    assert all(p.rationale.startswith(prefix) for p in planned.plans)
    notes = list(ctx.ledger.search_calls()["note"])
    assert notes[0].endswith("; retried") and notes[1].endswith("; falling back")


def test_an_undescribed_free_plan_is_dropped_and_its_directive_planned_by_the_catalog(
    tmp_path: Path,
) -> None:
    replay = DATA / "planner_undescribed_change.jsonl"
    ctx = llm_run(tmp_path, {"upstream": "replay", "replay_log": str(replay)})
    inputs = improver_inputs(ctx, 1, ["c000"])
    with search_account(ctx, 1) as opened:  # the configured replay upstream
        planned = llm_planner.plan_all(opened, inputs, [], {"c000": {}})
    assert planned.fallbacks == {}  # the other two plans of the reply are used: no retry
    by_directive = {p.directive: p for p in planned.plans}
    assert by_directive["balanced"].mechanism == "compress_output"
    assert by_directive["performance-first"].mechanism == "verify_before_submit"
    filled = by_directive["cost-first"]
    assert filled.mechanism in CATALOG and filled.mechanism != "turbo-mode"
    assert filled.rationale.startswith("catalog plan for a directive the llm planner left")
    (note,) = ctx.ledger.search_calls()["note"]
    why = "plan 'turbo-mode' is not a catalog example and describes no change"
    assert note == f"used; dropped {why}"


def test_a_second_plan_for_a_directive_is_dropped_not_the_reply(
    account: tuple[RunContext, ReplayUpstream, SearchAccount],
) -> None:
    ctx, upstream, opened = account
    twice = [*PLANS[:2], ("performance-first", "compress_output", 0.0, 0.0)]
    upstream.replies += [reply(plans_json(twice))]
    planned = llm_planner.plan_all(opened, improver_inputs(ctx, 1, ["c000"]), [], {"c000": {}})
    assert planned.fallbacks == {} and len(upstream.requests) == 1
    assert [p.mechanism for p in planned.plans][:2] == ["concise_prompt", "compress_output"]
    assert planned.plans[2].directive == "performance-first"
    assert planned.plans[2].mechanism not in ("concise_prompt", "compress_output")
    (note,) = ctx.ledger.search_calls()["note"]
    assert "'compress_output': a second plan for performance-first or its name" in note


def test_excluded_mechanisms_are_dropped(
    account: tuple[RunContext, ReplayUpstream, SearchAccount],
) -> None:
    ctx, _, _ = account
    check = llm_planner.checker({"concise_prompt"}, set())
    reply_ = llm_planner.PlannerReply.model_validate_json(plans_json())
    screened = check(reply_)
    assert isinstance(screened, llm_planner.PlannerReply)
    assert [p.name for p in screened.plans] == ["compress_output", "verify_before_submit"]
    assert screened.dropped == ["'concise_prompt' is already on this lineage or was tried here"]
    every = llm_planner.checker({m for _, m, _, _ in PLANS}, set())
    assert str(every(reply_)).startswith("no usable plan ('concise_prompt' is already on")
    kept = llm_planner.checker(set(), set())(reply_)
    assert isinstance(kept, llm_planner.PlannerReply) and len(kept.plans) == 3


def test_analyzer_drills_into_one_trajectory_then_diagnoses(
    account: tuple[RunContext, ReplayUpstream, SearchAccount],
) -> None:
    ctx, upstream, opened = account
    diagnoses = json.dumps(DIAGNOSES).replace("TASK", ctx.splits.coreset[0])
    upstream.replies += [reply('{"excerpt": "k01"}'), reply(diagnoses)]
    found = llm_analyzer.diagnose(opened, improver_inputs(ctx, 1, ["c000"]))
    assert found.fallbacks == {} and [d.kind for d in found.diagnoses] == ["slow_start"]
    last = upstream.requests[1]["messages"][-1]["content"]
    assert last.startswith("Excerpt of k01:") and "cat /workspace/in.txt" in last


def test_analyzer_falls_back_to_the_rules_with_a_reason(
    account: tuple[RunContext, ReplayUpstream, SearchAccount],
) -> None:
    ctx, upstream, opened = account
    bad = json.dumps({"diagnoses": [{**DIAGNOSES["diagnoses"][0], "task_id": "nope"}]})
    upstream.replies += [reply(bad), reply(bad)]
    inputs = improver_inputs(ctx, 1, ["c000"])
    found = llm_analyzer.diagnose(opened, inputs)
    assert found.diagnoses == analyze(inputs.traces)
    assert found.fallbacks["c000"].startswith("invalid answer after one retry: unknown task_id")


def test_failed_llm_edit_falls_back_to_the_catalog_edit(
    account: tuple[RunContext, ReplayUpstream, SearchAccount],
) -> None:
    ctx, upstream, opened = account
    # The agent answers at once without editing (the replay is empty): both attempts fail.
    seed = ctx.candidates()["c000"]
    plan = Plan("c000", "balanced", "compress_output", "llm planner: fold", 0.0, -0.2)
    editor = LLMEditor(opened, opened.improver)
    edit = apply_plan_or_catalog(plan, seed, ctx.repo, [seed], "c001", 1, editor)

    assert edit.new and edit.candidate is not None
    assert "llm editor failed, discarded: compress_output is not in effect" in edit.note
    assert edit.note.endswith("catalog edit used")
    message = ctx.repo.repo.commit(edit.candidate.commit).message
    assert "balanced: compress_output" in message
    assert "edit: catalog edit (llm editor failed, discarded:" in message
    assert len(upstream.requests) == 2  # attempt 1 and the retry with the validator's message
    feedback = json.loads(upstream.requests[1]["messages"][1]["content"].split("```json\n")[1][:-4])
    assert feedback["feedback"] == "compress_output is not in effect after editing"
    assert list(ctx.ledger.search_calls()["attempt"]) == [1, 2]


def test_editing_agent_is_confined_to_its_copy(
    account: tuple[RunContext, ReplayUpstream, SearchAccount],
) -> None:
    ctx, upstream, opened = account
    upstream.replies += [
        tool_call("write_file", 0, path="../outside.txt", content="x"),
        tool_call("bash", 1, command="echo x > /opt/x; rm -f .git; ls -a; echo $OPENAI_API_KEY"),
        tool_call("write_file", 2, path="prompts/system.md", content=CONCISE_PROMPT),
        reply("Done."),
    ]
    seed = ctx.candidates()["c000"]
    plan = Plan("c000", "cost-first", "concise_prompt", "llm planner: shorter", 0.0, -0.3)
    edit = apply_plan_or_catalog(
        plan, seed, ctx.repo, [seed], "c001", 1, LLMEditor(opened, opened.improver)
    )

    assert edit.candidate is not None and edit.note == ""
    tools = [m["content"] for m in upstream.requests[-1]["messages"] if m["role"] == "tool"]
    assert tools[0] == "error: ../outside.txt: outside the harness directory"
    assert "Read-only file system" in tools[1] and ".git" not in tools[1].split()
    assert opened.tokens["editor"] not in tools[1]  # a fresh token per attempt, not the role's
    assert (ctx.repo.worktrees / "c001" / ".git").is_file()  # the real worktree is untouched
    assert "llm editor (scripted) attempt 1: done after 4 steps; wrote prompts/system.md" in (
        ctx.repo.repo.commit(edit.candidate.commit).message
    )


def test_scripted_improver_runs_llm_mode_offline(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path)
    children = improve(ctx, 1, ["c000"])
    assert len(children) == 3
    for child in children:
        message = ctx.repo.repo.commit(child.commit).message
        assert re.search(r"edit: llm editor \(scripted\) attempt 1: done after \d steps", message)
    assert set(ctx.ledger.search_calls()["role"]) == {"analyzer", "planner", "editor"}
    assert "fell back" not in ctx.console.export_text()


def test_a_spent_search_budget_falls_back_without_calls(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path, budget={"max_improver_dollars": 0.001})
    ctx.ledger.record_search_call(
        0, "synthesizer", 1, ModelCall("scripted", Usage(), 0.002, 0.1, 200)
    )
    upstream = ReplayUpstream([])
    children = improve(ctx, 1, ["c000"], upstream)
    assert upstream.requests == [] and len(children) == 3
    text = ctx.console.export_text()
    assert "planner fell back to the catalog for c000: the search budget" in text
    assert set(ctx.ledger.plans()["note"].str.contains("llm editor failed")) == {True}


def test_search_cost_table_marks_unknown_dollars(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path)
    ctx.ledger.record_search_call(
        1, "planner", 1, ModelCall("m", Usage(5, 0, 0, 2), None, 0.1, 200)
    )
    ctx.ledger.record_search_call(
        1, "analyzer", 1, ModelCall("m", Usage(5, 0, 0, 2), 0.5, 0.1, 502)
    )
    ctx.ledger.record_search_call(1, "editor", 1, ModelCall("m", None, None, 0.1, 200))
    costs = pd.read_csv(write_search_costs(ctx.ledger, ctx.run.reports()), dtype=str)
    by_role = costs.set_index("role")
    assert by_role.loc["planner", "dollars"] == by_role.loc["all", "dollars"] == "unknown"
    assert by_role.loc["analyzer", "dollars"] == "0.5" and by_role.loc["analyzer", "failed"] == "1"
    assert by_role.loc["all", "calls"] == "3"
    # a call without reported usage: its tokens and the total's are unknown, not 0
    assert by_role.loc["editor", "output"] == by_role.loc["all", "output"] == "unknown"
    assert by_role.loc["planner", "output"] == "2"
    line = describe_search_costs(ctx.ledger)
    assert line == "search (improver) calls: 3, unknown $ (planner 1, analyzer 1 $0.5000, editor 1)"


def test_prompts_state_role_inputs_and_output_schema() -> None:
    schemas = {
        "analyzer.v1": llm_analyzer.DiagnosisOut,
        "planner.v2": llm_planner.PlanOut,
    }
    for name in ("analyzer.v1", "planner.v2", "editor.v2"):
        text = load_prompt(name)
        assert text.startswith("# Role: ") and f"({name})" in text.splitlines()[0]
        assert "## Inputs" in text and "## Output" in text and "```json" in text
        for field in schemas[name].model_fields if name in schemas else ["summary"]:
            assert f'"{field}"' in text, (name, field)


# -- analyzer features -------------------------------------------------------------------------
def trace(key: str, text: str, passed: bool = True, **usage: Any) -> Trace:
    return Trace(key, "c0", "t1", passed, text, 100, 4, **usage)


def test_task_stats_measure_what_the_rules_see() -> None:
    idle = json.dumps({"type": "model_call", "step": 9, "content": "hmm"})
    blocked = json.dumps(
        {"type": "tool_result", "step": 2, "chars": 70, "output": "Tool call blocked: spent"}
    )
    traces = [
        trace("a", trajectory(COMMANDS) + "\n" + idle, uncached_input=800, cached_input=200),
        trace("b", trajectory(COMMANDS[:1], submit=False) + "\n" + blocked, False,
              uncached_input=1000, cached_input=0),
    ]  # fmt: skip
    (stats,) = task_stats(traces)
    assert (stats.rollouts, stats.passed, stats.tool_calls) == (2, 1, 2.5)
    assert stats.repeated_commands == 0.5 and stats.no_action_turns == 0.5
    assert stats.budget_hits == 1.0  # b: one blocked call + ended without submitting
    assert stats.cached_share == pytest.approx(0.1)
    kinds = {d.kind: d.count for d in analyze(traces)}
    assert kinds["no_action_turns"] == 1 and kinds["budget_hits"] == 1
    assert "empty_submissions" not in kinds


def test_token_parts_split_measured_input() -> None:
    t = trace("a", trajectory(["x" * 40, "y" * 40], output="z" * 400), uncached_input=2000)
    parts = token_parts(t, [json.loads(line) for line in t.trajectory.splitlines()])
    # Call 2 re-sends reply 1 (12 + 40 chars) and result 1; call 3 re-sends both replies.
    assert parts["tool_results"] == pytest.approx((400 + 800) / 4)
    assert parts["prefix"] == pytest.approx(2000 - parts["replies"] - parts["tool_results"])


def test_failure_clusters_span_tasks() -> None:
    failing = trajectory(COMMANDS, output="bash: foo: command not found")
    traces = [
        Trace("a", "c0", "t1", False, failing, 1, 4),
        Trace("b", "c0", "t2", False, failing, 1, 4),
        Trace("c", "c0", "t3", True, failing, 1, 4),
    ]
    found = {c.kind: c for c in clusters(traces)}
    assert found["unrecovered_errors"].tasks == ("t1", "t2")
    assert found["repeated_commands"].failed_rollouts == 2


# -- a real endpoint --------------------------------------------------------------------------
def llama_improver(base_url: str) -> dict[str, Any]:
    return {
        "name": "gemma-3-270m", "upstream": "openai", "base_url": base_url,
        "allow_unpriced": True, "max_edit_steps": 1, "request": {"max_tokens": 32},
        "context_tokens": 2048,  # every role fits its prompt (the server holds 4,096)
    }  # fmt: skip


@pytest.mark.slow
def test_llama_cpp_improver_never_crashes(tmp_path: Path, llama_server: str) -> None:
    ctx = llm_run(tmp_path, llama_improver(llama_server))
    children = improve(ctx, 1, ["c000"])
    assert children  # whatever the model said, candidates came out of the catalog fallbacks
    calls = ctx.ledger.search_calls()
    assert len(calls) >= 2 and calls["cost"].isna().all()  # unpriced: unknown, never 0
    notes = " ".join(ctx.ledger.plans()["rationale"]) + " ".join(ctx.ledger.plans()["note"])
    text = ctx.console.export_text()
    assert "fell back to the catalog" in text or "llm editor failed" in notes


@pytest.mark.slow
def test_llama_cpp_planner_under_the_default_strategy_never_crashes(
    tmp_path: Path, llama_server: str
) -> None:
    ctx = llm_run(tmp_path, llama_improver(llama_server))
    children = ExpectedGain().propose(ctx, 2, ["c000"])  # after the screening epoch
    assert children  # the surrogate chose among whatever plans came out (fallbacks included)
    plans = ctx.ledger.plans()
    assert plans["rationale"].str.contains("expected hypervolume gain").all()
    assert set(ctx.ledger.search_calls()["role"]) >= {"analyzer", "planner"}
