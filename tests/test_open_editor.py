"""The open-ended improvement path: free-form plans, the coding-agent editor's gates (a new
hook file is accepted; a change with no observable effect is retried once, then committed
unproven; a broken immutable file is discarded after one retry), the in-effect comparison,
and plan verdicts."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import harnesspro
from harnesspro.core.config import load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.records import Plan
from harnesspro.evolution.improve import improve, search_account
from harnesspro.execution.gateway.upstream import ReplayUpstream
from harnesspro.harness.effect import Signature, first_difference
from harnesspro.improvers.account import SearchAccount
from harnesspro.improvers.editor.apply import UNPROVEN, Edit, apply_plan, apply_plan_or_catalog
from harnesspro.improvers.editor.llm import LLMEditor
from harnesspro.improvers.planner import llm as llm_planner
from harnesspro.improvers.planner.memory import Difference, Pairs, measure, paired_difference
from harnesspro.run.context import RunContext, seed_template
from harnesspro.run.disclosure import improver_inputs
from tests.conftest import llm_run, reply, tiny_config, tool_call

Opened = tuple[RunContext, ReplayUpstream, SearchAccount]
HOOK_MODULE = """def tag_results(agent, text):
    return text + "\\n[tagged]"
"""
HOOKED_YAML_LINE = "  on_tool_result: [{use: 'agent.tagging:tag_results'}]"


def free_plan(name: str, files: tuple[str, ...] = ()) -> Plan:
    return Plan(
        "c000", "balanced", name, "llm planner: try it", 0.0, -0.1,
        kind="free", levers=("context management",), change=f"do {name}", files=files,
    )  # fmt: skip


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[Opened]:
    ctx = llm_run(tmp_path)
    upstream = ReplayUpstream([])
    with search_account(ctx, 1, upstream) as account:
        yield ctx, upstream, account


def seed_yaml_with_hook(ctx: RunContext) -> str:
    lines = (ctx.repo.root / "harness.yaml").read_text().split("\n")
    hooked = [HOOKED_YAML_LINE if ln.startswith("  on_tool_result:") else ln for ln in lines]
    return "\n".join(hooked)


def edit_with(ctx: RunContext, account: SearchAccount, plan: Plan) -> Edit:
    seed = ctx.candidates()["c000"]
    editor = LLMEditor(account, account.improver)
    return apply_plan_or_catalog(plan, seed, ctx.repo, [seed], "c001", 1, editor)


def test_a_new_hook_file_is_accepted(opened: Opened) -> None:
    ctx, upstream, account = opened
    upstream.replies += [
        tool_call("write_file", 0, path="agent/tagging.py", content=HOOK_MODULE),
        tool_call("write_file", 1, path="harness.yaml", content=seed_yaml_with_hook(ctx)),
        tool_call("run_checks", 2),
        reply("Added a hook module and registered it."),
    ]
    edit = edit_with(ctx, account, free_plan("tag-results", ("agent/tagging.py", "harness.yaml")))
    assert edit.candidate is not None and edit.new, edit.note
    tools = [m["content"] for m in upstream.requests[-1]["messages"] if m["role"] == "tool"]
    assert tools[-1] == "all checks passed"
    files = ctx.repo.files(edit.candidate.commit)
    assert files["agent/tagging.py"].decode() == HOOK_MODULE
    message = ctx.repo.repo.commit(edit.candidate.commit).message
    assert "balanced: tag-results" in message and "free change: do tag-results" in message


def test_a_change_without_observable_effect_is_retried_then_committed_unproven(
    opened: Opened,
) -> None:
    ctx, upstream, account = opened
    note = tool_call("write_file", 0, path="NOTES.md", content="we should be faster\n")
    upstream.replies += [note, reply("Wrote a note."), note, reply("Wrote it again.")]
    edit = edit_with(ctx, account, free_plan("write-notes", ("NOTES.md",)))
    # Not discarded yet: the coreset's first attempts judge it (tests/test_effect_gates.py).
    assert edit.candidate is not None and edit.new and edit.note == UNPROVEN
    assert len([r for r in upstream.requests if "tools" in r]) == 4  # two attempts
    retry = json.loads(upstream.requests[2]["messages"][1]["content"].split("```json\n")[1][:-4])
    assert retry["feedback"].startswith("the change has no observable effect on the smoke tasks")


def test_an_editor_whose_prompt_cannot_fit_the_window_fails_the_edit(opened: Opened) -> None:
    """Seen on the real local model's 4096-token window: the editor never ran, and the plan
    used to be committed as the parent's own tree. Now the edit fails, saying why."""
    ctx, upstream, account = opened
    small = account.improver.model_copy(update={"context_tokens": 1200})
    seed = ctx.candidates()["c000"]
    plan = free_plan("write-notes", ("NOTES.md",))
    edit = apply_plan_or_catalog(plan, seed, ctx.repo, [seed], "c001", 1, LLMEditor(account, small))
    assert edit.candidate is None and not upstream.requests
    assert edit.note.startswith("discarded: the edit failed: ValueError: llm editor")
    assert "the prompt needs" in edit.note


def test_breaking_an_immutable_file_is_refused_retried_then_discarded(opened: Opened) -> None:
    ctx, upstream, account = opened
    write = tool_call("write_file", 0, path="harness.toml", content="[harness]\n")
    sneak = tool_call("bash", 1, command="echo '# mine' >> harness.toml")
    upstream.replies += [write, sneak, reply("Changed the manifest."), sneak, reply("Again.")]
    edit = edit_with(ctx, account, free_plan("new-manifest", ("harness.toml",)))
    assert edit.candidate is None
    assert edit.note.startswith("discarded: immutable path harness.toml differs from the seed")
    first = [m["content"] for m in upstream.requests[2]["messages"] if m["role"] == "tool"]
    assert first[0] == "error: refused: harness.toml is immutable (the manifest lists it)"
    retry = json.loads(upstream.requests[3]["messages"][1]["content"].split("```json\n")[1][:-4])
    assert retry["feedback"] == "immutable path harness.toml differs from the seed"
    assert retry["layout"]["immutable"] == ["harness.toml"]


def test_scripted_free_form_plan_is_written_as_code_or_prompt_text(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path)
    children = improve(ctx, 1, ["c000"])
    plans = ctx.ledger.plans()
    free = plans[plans["kind"] == "free"]
    assert len(free) == 1 and free.iloc[0]["directive"] == "balanced"
    row = free.iloc[0]
    assert row["child_id"] in {c.id for c in children}, row["note"]
    child = next(c for c in children if c.id == row["child_id"])
    seed = ctx.candidates()["c000"]
    changed = ctx.repo.changed_files(seed.commit, child.commit)
    assert set(changed) <= set(json.loads(row["files"])) and changed
    assert row["change"] and json.loads(row["levers"])


# -- the in-effect comparison and verdicts, on hand-built cases -----------------------------------
def shape(system: str = "s", params: str = "p") -> str:
    return json.dumps(
        {"first_user": "u", "params": params, "system": system, "tools": "t"}, sort_keys=True
    )


def test_first_difference_names_what_changed() -> None:
    parent = Signature((shape(), shape()), ("tool_call:ls", "submit"))
    assert first_difference(parent, parent) == ""
    assert first_difference(parent, Signature((shape("x"), shape("x")), parent.events)) == (
        "request 1 differs in system"
    )
    hooked = Signature(parent.requests, ("tool_call:ls", "hook:compress", "submit"))
    assert first_difference(parent, hooked).startswith("trajectory event 'submit' -> 'hook:")
    assert first_difference(parent, Signature((shape(),), parent.events)) == "2 -> 1 model calls"


def diff(d_pass: float, pass_ci: tuple[float, float], d_cost: float,
         cost_ci: tuple[float, float]) -> Difference:  # fmt: skip
    return Difference(d_pass, *pass_ci, d_cost, *cost_ci)


INSIDE = (-0.1, 0.1)


@pytest.mark.parametrize(
    ("directive", "change", "verdict"),
    [
        ("balanced", diff(0.02, INSIDE, 0.01, INSIDE), "no effect"),
        ("balanced", diff(0.0, (0.0, 0.0), 0.003, (0.0, 0.005)), "no effect"),  # negligible
        ("balanced", diff(0.0, (0.0, 0.0), 0.03, (0.025, 0.035)), "hurt"),  # clears the band
        ("performance-first", diff(0.15, (0.05, 0.25), 0.2, (0.1, 0.3)), "helped"),
        ("cost-first", diff(0.15, (0.05, 0.25), 0.2, (0.1, 0.3)), "hurt"),
        ("cost-first", diff(0.0, INSIDE, -0.3, (-0.4, -0.2)), "helped"),
        ("cost-first", diff(-0.2, (-0.3, -0.1), -0.3, (-0.4, -0.2)), "hurt"),
        ("balanced", diff(0.02, INSIDE, 0.5, (0.4, 0.6)), "hurt"),
        ("balanced", diff(0.15, (0.05, 0.25), 0.01, INSIDE), "helped"),
    ],
)
def test_verdicts_on_hand_worked_cases(directive: str, change: Difference, verdict: str) -> None:
    plan = Plan("c000", directive, "x", "r", 0.0, 0.0)  # type: ignore[arg-type]
    effect = measure(plan, change, "dollars", [])
    assert effect.verdict == verdict
    assert (effect.d_pass, effect.d_cost) == (change.d_pass, change.d_cost)


def test_confounded_and_unknown_cost() -> None:
    plan = Plan("c000", "balanced", "x", "r", 0.0, 0.0)
    change = diff(0.3, (0.2, 0.4), 0.0, INSIDE)
    effect = measure(plan, change, "dollars", ["also changed y"])
    assert (effect.verdict, effect.why) == ("confounded", "also changed y")
    effect = measure(plan, diff(0.0, INSIDE, -0.4, (-0.5, -0.3)), "tokens", [])
    assert effect.d_cost is None and effect.verdict == "helped" and "tokens per task" in effect.why


def test_paired_difference_against_hand_computation() -> None:
    # t1 gains a pass and costs 2 -> 3; t2 loses a pass and costs 2 -> 1 (two attempts each).
    tasks = np.array(["t1", "t1", "t2", "t2"])
    pairs = Pairs(tasks, np.array([0, 0, 1, 1.0]), np.array([1, 1, 0, 0.0]),
                  np.array([2, 2, 2, 2.0]), np.array([3, 3, 1, 1.0]))  # fmt: skip
    found = paired_difference(pairs, resamples=2000, confidence=0.9, seed=1)
    assert (found.d_pass, found.d_cost) == (0.0, 0.0)
    # Resampling two tasks: {t1,t1} (p = 1/4) gives +1 pass, +50% cost; {t2,t2} gives -1, -50%.
    assert (found.pass_lo, found.pass_hi) == (-1.0, 1.0)
    assert (found.cost_lo, found.cost_hi) == (-0.5, 0.5)
    same = Pairs(tasks, pairs.parent_pass, pairs.parent_pass + 0, pairs.parent_cost,
                 pairs.parent_cost * 0.5)  # fmt: skip
    halved = paired_difference(same, resamples=200)
    assert (halved.pass_lo, halved.pass_hi, halved.cost_lo, halved.cost_hi) == (0, 0, -0.5, -0.5)


# -- evolving the user's own harness ---------------------------------------------------------------
def own_harness(tmp_path: Path, with_yaml: bool = True) -> Path:
    harness = tmp_path / "my-harness"
    shutil.copytree(seed_template(), harness, ignore=shutil.ignore_patterns("__pycache__"))
    (harness / "prompts" / "system.md").write_text("MY-OWN-SEED-PROMPT: use bash.\n")
    if not with_yaml:  # and so no knobs over it
        (harness / "harness.yaml").unlink()
        manifest = (harness / "harness.toml").read_text()
        (harness / "harness.toml").write_text(manifest[: manifest.index("[[knob]]")])
    return harness


def test_a_run_starts_from_the_users_harness(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path, harness={"seed": str(own_harness(tmp_path))})
    files = ctx.repo.files(ctx.candidates()["c000"].commit)
    assert files["prompts/system.md"] == b"MY-OWN-SEED-PROMPT: use bash.\n"
    children = improve(ctx, 1, ["c000"])
    assert children  # catalog examples and free ideas apply: its files are seed-style


def test_catalog_edits_need_their_knobs(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path, harness={"seed": str(own_harness(tmp_path, with_yaml=False))})
    seed = ctx.candidates()["c000"]
    plan = Plan("c000", "cost-first", "concise_prompt", "r", 0.0, -0.3)
    edit = apply_plan(plan, seed, ctx.repo, [seed], "c001", 1)
    assert edit.candidate is None
    assert edit.note == (
        "discarded: the edit failed: ValueError: concise_prompt needs knobs this harness does "
        "not declare (harness.toml [[knob]])"
    )


def test_a_seed_without_manifest_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"harness\.seed.*has no harness\.toml"):
        load_config(tiny_config(tmp_path, harness={"seed": str(tmp_path)}))


# -- the llm planner's free-form answers ----------------------------------------------------------
def free_answer(coreset: list[str], **first: object) -> str:
    plans = [
        {"directive": "cost-first", "name": "trim-listing", "levers": ["context management"],
         "change": "Add an on_tool_result hook that cuts `ls -la` output to names only.",
         "files": ["agent/listing.py", "harness.yaml"], "rationale": "exploration 92%",
         "predicted_pass": 0.0, "predicted_cost": -0.1, "expected_flips": [coreset[0]]},
        {"directive": "balanced", "name": "concise_prompt", "levers": ["prompt"],
         "rationale": "the catalog example as it is", "predicted_pass": 0.0,
         "predicted_cost": -0.3},
        {"directive": "performance-first", "name": "explain-failures", "levers": ["prompt"],
         "change": "Tell the agent to read error messages before retrying.",
         "rationale": "unrecovered errors", "predicted_pass": 0.05, "predicted_cost": 0.02},
    ]  # fmt: skip
    plans[0].update(first)
    return json.dumps({"plans": plans})


def test_free_form_plans_are_recorded_with_their_fields(opened: Opened) -> None:
    ctx, upstream, account = opened
    upstream.replies += [reply(free_answer(list(ctx.splits.coreset)))]
    planned = llm_planner.plan_all(account, improver_inputs(ctx, 1, ["c000"]), [], {"c000": {}})
    assert planned.fallbacks == {}
    first, second, third = planned.plans
    assert (first.kind, first.mechanism, first.files) == (
        "free",
        "trim-listing",
        ("agent/listing.py", "harness.yaml"),
    )
    assert first.expected_flips == (ctx.splits.coreset[0],) and first.levers == (
        "context management",
    )
    assert (second.kind, second.mechanism) == ("catalog", "concise_prompt")
    assert third.kind == "free" and third.change.startswith("Tell the agent")
    data = json.loads(upstream.requests[0]["messages"][1]["content"].split("```json\n")[1][:-4])
    assert {"memory", "examples", "levers", "coreset_tasks", "diffs"} <= set(data)
    assert "mechanisms" not in data  # the catalog is a library of examples, not a menu


@pytest.mark.parametrize(
    ("change", "dropped"),
    [
        ({"levers": ["vibes"]}, "'trim-listing': no lever of ['vibes'] is one of `levers`"),
        ({"change": ""}, "plan 'trim-listing' is not a catalog example and describes no change"),
        # the prompt's output example copied back (seen from the 0.5B model): its name, or
        # its change text under a name of the model's own
        (
            {"name": "short-slug-for-the-change"},
            "'short-slug-for-the-change' copies the prompt's output example instead of planning",
        ),
        (
            {"change": "what to change, concretely enough for an engineer to implement it"},
            "'trim-listing' copies the prompt's output example instead of planning",
        ),
    ],
)
def test_a_free_form_plan_that_fails_a_check_is_dropped_alone(
    opened: Opened, change: dict[str, object], dropped: str
) -> None:
    ctx, _, _ = opened
    answer = llm_planner.PlannerReply.model_validate_json(
        free_answer(list(ctx.splits.coreset), **change)
    )
    screened = llm_planner.checker(set(), set(ctx.splits.coreset))(answer)
    assert isinstance(screened, llm_planner.PlannerReply)
    assert screened.dropped == [dropped] and len(screened.plans) == 2


def test_levers_in_other_words_and_flips_outside_the_coreset_are_normalised(
    opened: Opened,
) -> None:
    ctx, _, _ = opened
    levers = ["Tool output truncation", "vibes"]
    text = free_answer(list(ctx.splits.coreset), levers=levers, expected_flips=["not-a-task"])
    answer = llm_planner.PlannerReply.model_validate_json(text)
    screened = llm_planner.checker(set(), set(ctx.splits.coreset))(answer)
    assert isinstance(screened, llm_planner.PlannerReply) and len(screened.plans) == 3
    assert screened.plans[0].levers == ["context management"]
    assert screened.plans[0].expected_flips == []


@pytest.mark.slow
def test_the_llm_editor_works_on_a_third_party_harness(tmp_path: Path) -> None:
    """The bundled mini-swe-agent wrapper as the seed: no harness.yaml, no seed hooks; an
    edit of its own config is accepted because the smoke rollout's system prompt changes."""
    wrapper = Path(harnesspro.__file__).parent / "harness" / "bundled" / "mini_swe_agent"
    ctx = llm_run(tmp_path, harness={"seed": str(wrapper)})
    config = (wrapper / "config.yaml").read_text()
    prompt = (
        "  system_template: You are a careful terminal agent. Verify outputs before you stop.\n"
    )
    edited = config.replace("agent:\n", "agent:\n" + prompt)
    upstream = ReplayUpstream(
        [tool_call("write_file", 0, path="config.yaml", content=edited), reply("Done.")]
    )
    with search_account(ctx, 1, upstream) as account:
        plan = free_plan("careful-system-prompt", ("config.yaml",))
        edit = edit_with(ctx, account, plan)
    assert edit.candidate is not None, edit.note
    files = ctx.repo.files(edit.candidate.commit)
    assert files["config.yaml"].decode() == edited and "harness.yaml" not in files
