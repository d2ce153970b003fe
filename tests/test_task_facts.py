"""No task facts in a harness (evolution/taskfacts.py): a planted candidate carrying a coreset
task's expected value (seen in the seed's outputs) is discarded with a reason that names the
kind of fact and the file but not the fact; ids, file names and distinctive instruction
phrases are caught too; generic edits and facts the parent already held pass."""

from __future__ import annotations

from pathlib import Path

from harnesspro.core.records import Plan, RolloutResult, RolloutSpec, Usage
from harnesspro.evolution.improve import edit_plan, search_account
from harnesspro.evolution.taskfacts import (
    TaskFacts,
    leak,
    looks_like_data,
    phrases,
    task_facts,
)
from harnesspro.execution.gateway.upstream import ReplayUpstream
from harnesspro.improvers.roles.dispatch import LLMImprover
from harnesspro.improvers.testsynth.gate import untouched_workspace
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.run.disclosure import improver_inputs
from harnesspro.sandbox.bubblewrap import Bubblewrap
from tests.conftest import llm_run, reply, tool_call, trajectory

VALUE = "4217.38"
"""The expected value the seed's rollouts wrote (a total no harness setting looks like)."""


def seed_with_output(ctx: RunContext) -> str:
    """Record seed rollouts of the first coreset task whose output holds VALUE."""
    task_id = ctx.splits.coreset[0]
    before = untouched_workspace(ctx.tasks[task_id], Bubblewrap())
    workspace = {**before.files, "totals.txt": f"grand total: {VALUE}\n".encode()}
    for attempt in (2, 3):
        key = f"out{attempt}"
        result = RolloutResult(
            key, "ok", Usage(), 0.0, 1.0, 2, None, trajectory(["ls"]), "", workspace
        )
        spec = RolloutSpec(key, SEED_ID, task_id, attempt, 0)
        ctx.ledger.record_rollout(spec, result, ctx.run.save_rollout(result), "coreset")
    return task_id


def test_seed_outputs_give_the_expected_values(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path)
    task_id = seed_with_output(ctx)
    facts = task_facts(ctx)
    assert VALUE in facts.values
    assert "grand" not in facts.values and "total" not in facts.values  # words, not data
    assert task_id.lower() in facts.ids


def test_a_planted_candidate_with_an_expected_value_is_discarded(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path)
    task_id = seed_with_output(ctx)
    system = (ctx.repo.root / "prompts" / "system.md").read_text()
    cheat = system + f"\nWhen a task asks for a grand total, the answer is {VALUE}.\n"
    upstream = ReplayUpstream(
        [tool_call("write_file", 0, path="prompts/system.md", content=cheat), reply("Done.")]
    )
    plan = Plan(
        SEED_ID, "performance-first", "total-hint", "llm planner: try it", 0.1, 0.0,
        kind="free", levers=("prompt",), change="add a hint", files=("prompts/system.md",),
    )  # fmt: skip
    inputs = improver_inputs(ctx, 1, [SEED_ID])
    with search_account(ctx, 1, upstream) as account:
        child, note = edit_plan(ctx, inputs, LLMImprover(account), 0, plan)
    assert child is None
    assert note == (
        "discarded: the change writes an expected value from the seed's outputs into "
        "prompts/system.md; a harness must carry no facts of the run's tasks"
    )
    assert VALUE not in note and task_id not in note  # the reason never carries the fact
    row = ctx.ledger.plans().iloc[0]
    assert row["child_id"] is None and row["note"] == note
    assert set(ctx.candidates()) == {SEED_ID}
    assert "cand/c001" not in [h.name for h in ctx.repo.repo.heads]


def facts(**kinds: set[str]) -> TaskFacts:
    return TaskFacts(**{k: frozenset(v) for k, v in kinds.items()})


PARENT = {"prompts/system.md": b"Work step by step.\n", "harness.yaml": b"max_steps: 50\n"}


def child(text: str, path: str = "prompts/system.md") -> dict[str, bytes]:
    return {**PARENT, path: PARENT.get(path, b"") + text.encode()}


def test_each_kind_of_fact_is_caught_and_named() -> None:
    known = facts(
        ids={"fix_invoice_totals"},
        names={"invoices.csv"},
        phrases=phrases("sum the amount column of every invoice per customer"),
        values={"INV-0042"},
    )
    cases = {
        "See fix_invoice_totals for the trick.\n": "a task's id",
        "Open invoices.csv first.\n": "a task's file name",
        "Always sum the Amount column of every invoice per customer.\n": "a distinctive phrase",
        "The bad row is inv-0042.\n": "an expected value",
    }
    for text, kind in cases.items():
        assert kind in leak(known, PARENT, child(text)), text


def test_generic_edits_and_facts_the_parent_held_pass() -> None:
    known = facts(ids={"fix_invoice_totals"}, values={"INV-0042", "4217"}, names=set())
    generic = child("Verify outputs before submitting; fold repeated log lines.\n")
    assert leak(known, PARENT, generic) == ""
    settings = child("compress: {max_chars: 2000, head: 20, tail: 20}\n", "harness.yaml")
    assert leak(known, PARENT, settings) == ""
    held = {**PARENT, "NOTES.md": b"fix_invoice_totals\n"}
    assert leak(known, held, {**held, "x.md": b"see fix_invoice_totals\n"}) == ""


def test_values_are_data_not_words_or_settings() -> None:
    for value in ("4217", "12.34", "INV-0042", "2024-01-05", "bob@mail.org", "report.csv"):
        assert looks_like_data(value), value
    for setting in ("2000", "1500", "120", "0.25", "4096", "78", "function", "0.5"):
        assert not looks_like_data(setting), setting
