"""Context budgets: prompts fitted to `improver_model.context_tokens` by cutting the least
valuable parts first (a hand-worked case), never sent when they cannot fit, trimmed once more
after an HTTP 400 for length; no NaN in any prompt; the json_schema response format probed
once per run against a fake provider."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harnesspro.core.model_config import ImproverConfig, ModelConfig
from harnesspro.core.records import Plan, Score
from harnesspro.core.retry import UpstreamError
from harnesspro.evolution.improve import search_account
from harnesspro.execution.fakes.provider import fake_provider
from harnesspro.execution.gateway.openai_upstream import OpenAIUpstream
from harnesspro.execution.gateway.upstream import ReplayUpstream
from harnesspro.execution.rollout import run_rollout
from harnesspro.improvers.account import make_improver_upstream
from harnesspro.improvers.editor import agent
from harnesspro.improvers.editor.llm import TOOLS_TOKENS, LLMEditor
from harnesspro.improvers.fit import Prompt, PromptTooLarge, prompt_limit, retrimmed_limit
from harnesspro.improvers.planner import llm as llm_planner
from harnesspro.improvers.tolerant import fit_conversation, message_tokens
from harnesspro.run.context import seed_template
from harnesspro.run.disclosure import improver_inputs
from tests.conftest import inputs_for_harness, llm_run, reply
from tests.test_llm_improvers import plans_json

SYSTEM = "x" * 300  # 300 / 2.5 = 120 tokens + 8 of framing = 128


def memory_prompt() -> Prompt:
    """The user message is 'T\\n\\n```json\\n' (11) + the JSON + '\\n```' (4); the JSON with
    indent 1 is 32 + 34 n characters for n memory rows of 28 characters, so the request is
    128 + ceil((47 + 34 n) / 2.5) + 8 tokens: n = 8 -> 264, 4 -> 210, 2 -> 182, 1 -> 169;
    no rows ('"memory": []', 46 characters) -> 155; no memory at all (31) -> 149."""
    rows = [f"{'a' * 27}{i}" for i in range(8)]
    return Prompt(
        SYSTEM, "T", {"keep": "k", "memory": rows}, ("memory",), tail=frozenset({"memory"})
    )


def test_a_prompt_is_cut_by_halves_from_its_least_valuable_part() -> None:
    prompt = memory_prompt()
    assert prompt.fit(None).tokens == prompt.fit(264).tokens == 264
    fitted = prompt.fit(190)
    assert fitted.tokens == 182 and fitted.cuts == ("memory: 8 -> 2 items",)
    user = json.loads(fitted.messages[1]["content"].split("```json\n")[1][:-4])
    assert user == {"keep": "k", "memory": ["a" * 27 + "6", "a" * 27 + "7"]}  # the newest
    assert prompt.fit(160).tokens == 155  # the last row cannot shrink: the list empties
    assert prompt.fit(152).cuts == ("memory: dropped",) and prompt.fit(152).tokens == 149
    with pytest.raises(PromptTooLarge, match="needs ~149 tokens"):
        prompt.fit(120)  # `keep` is not ranked: it is never cut


def test_a_long_text_keeps_its_head_and_tail() -> None:
    prompt = Prompt("s", "T", {"log": "H" * 300 + "M" * 600 + "T" * 300}, ("log",))
    user = prompt.fit(200).messages[1]["content"]
    text = json.loads(user.split("```json\n")[1][:-4])["log"]
    assert text.startswith("H" * 10) and text.endswith("T" * 10) and "chars cut" in text
    assert len(text) < 600


def test_the_limit_keeps_room_for_the_reply_and_the_estimates_error() -> None:
    assert prompt_limit(None, {}) is None
    assert prompt_limit(4096, {}) == 4096 - 1024 - 204  # a quarter for the reply, 5% margin
    assert prompt_limit(4096, {"max_tokens": 512}) == 4096 - 512 - 204
    assert prompt_limit(32_768, {}) == 32_768 - 2048 - 1638
    llama = "Requested tokens (5000) exceed context window of 4096"
    assert retrimmed_limit(2868, llama) == 2114  # 2868 * 4096 / 5000 * 0.9
    openai = (
        "This model's maximum context length is 4096 tokens. However, you requested 5018 "
        "tokens (5010 in the messages, 8 in the completion). Please reduce the length."
    )
    assert retrimmed_limit(3000, openai) == 2203  # 3000 * (4096 - 8) / 5010 * 0.9
    assert retrimmed_limit(1000, "the request exceeds the available context size") == 700
    assert retrimmed_limit(1000, "invalid value for temperature") is None


class LengthLimited(ReplayUpstream):
    """A replay upstream behind a window: a request over `window` estimated prompt tokens is
    refused with an HTTP 400 naming both sizes, as llama.cpp's server does."""

    def __init__(self, replies: list[dict[str, Any]], window: int) -> None:
        super().__init__(replies)
        self.window, self.refused = window, 0

    def complete(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        chars = sum(len(str(m.get("content") or "")) for m in request["messages"])
        if chars / 3 > self.window:
            self.refused += 1
            message = f"Requested tokens ({int(chars / 3)}) exceed context window of {self.window}"
            raise UpstreamError(400, message)
        return super().complete(request, sampling_seed)


def test_a_400_for_length_is_answered_by_trimming_once_more(tmp_path: Path) -> None:
    # the configured window (8192) is larger than the server's real one (2000): one 400
    ctx = llm_run(tmp_path, {"context_tokens": 8192})
    inputs = improver_inputs(ctx, 1, ["c000"])
    upstream = LengthLimited([reply(plans_json())], window=2000)
    with search_account(ctx, 1, upstream) as opened:
        planned = llm_planner.plan_all(opened, inputs, [], {"c000": {}})
    assert planned.fallbacks == {} and upstream.refused == 1
    assert [p.mechanism for p in planned.plans][0] == "concise_prompt"  # the model's plans
    sent = sum(len(m["content"]) for m in upstream.requests[0]["messages"])
    assert sent / 3 <= 2000
    log = (ctx.run.root / "search" / "epoch-1" / "calls.jsonl").read_text().splitlines()
    cut = [json.loads(line) for line in log if '"cut"' in line]
    assert cut and cut[-1]["role"] == "planner"
    statuses = list(ctx.ledger.search_calls()["status"])
    assert statuses == [400, 200]


def test_a_prompt_that_cannot_fit_is_never_sent(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path, {"context_tokens": 1024})  # the planner's prompt alone is larger
    inputs = improver_inputs(ctx, 1, ["c000"])
    upstream = ReplayUpstream([reply(plans_json())])
    with search_account(ctx, 1, upstream) as opened:
        planned = llm_planner.plan_all(opened, inputs, [], {"c000": {}})
    assert upstream.requests == []
    assert planned.fallbacks["c000"].startswith("the planner prompt cannot fit the window")


def test_the_planner_prompt_fits_a_small_window_by_cutting(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path, {"context_tokens": 4096, "request": {"max_tokens": 1024}})
    inputs = improver_inputs(ctx, 1, ["c000"])
    upstream = ReplayUpstream([reply(plans_json())])
    with search_account(ctx, 1, upstream) as opened:
        planned = llm_planner.plan_all(opened, inputs, [], {"c000": {}})
    assert planned.fallbacks == {}
    sent = sum(len(m["content"]) for m in upstream.requests[0]["messages"])
    assert math.ceil(sent / 2.5) + 16 <= 4096 - 1024 - 204


def test_no_nan_reaches_a_prompt_from_an_unpriced_cost(tmp_path: Path) -> None:
    ctx = llm_run(tmp_path)
    inputs = improver_inputs(ctx, 1, ["c000"])
    unpriced = Score("c000", 0.5, math.nan, math.nan, 4, math.nan)
    inputs = replace(inputs, scores={**inputs.scores, "c000": unpriced})
    upstream = ReplayUpstream([reply(plans_json())])
    with search_account(ctx, 1, upstream) as opened:
        llm_planner.plan_all(opened, inputs, [], {"c000": {}})
    content = upstream.requests[0]["messages"][1]["content"]
    assert "NaN" not in content and "Infinity" not in content

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in the prompt")

    data = json.loads(content.split("```json\n")[1][:-4], parse_constant=refuse)
    assert data["parent"]["score"]["cost_per_task"] is None
    assert data["parent"]["score"]["pass_rate"] == 0.5


def openai_account(tmp_path: Path, base_url: str, **improver: Any) -> Any:
    config = {"name": "m", "upstream": "openai", "base_url": base_url, "allow_unpriced": True}
    return llm_run(tmp_path, {**config, **improver})


@pytest.mark.parametrize(
    ("behaviours", "found"),
    [
        ([("say", '{"ok": true}')], "json_schema"),
        ([("status", 400, None), ("say", '{"ok": true}')], "json_object"),  # llama-cpp-python
        ([("status", 400, None), ("status", 400, None)], ""),  # neither: no format asked
        ([("ok",), ("ok",)], ""),  # accepted but ignored: the answer is not the JSON asked for
    ],
)
def test_the_response_format_probe(
    tmp_path: Path, behaviours: list[tuple[Any, ...]], found: str
) -> None:
    with fake_provider(behaviours, default=("say", plans_json())) as provider:
        ctx = openai_account(tmp_path, provider.base_url)
        upstream = OpenAIUpstream(provider.base_url, "k")
        with search_account(ctx, 1, upstream) as opened:
            assert opened.structured() == found
            llm_planner.plan_all(opened, improver_inputs(ctx, 1, ["c000"]), [], {"c000": {}})
        with search_account(ctx, 2, upstream) as again:  # the run's verdict is kept
            assert again.structured() == found
    probes, planner = provider.requests[:-1], provider.requests[-1]
    assert len(probes) == len(behaviours)  # one probe per format tried, once per run
    kinds = [p["response_format"]["type"] for p in probes]
    assert kinds == ["json_schema", "json_object"][: len(probes)]
    assert all(p["max_tokens"] == 16 for p in probes)
    if found == "json_schema":
        spec = planner["response_format"]["json_schema"]
        assert spec["name"] == "planner" and "plans" in spec["schema"]["properties"]
        assert "dropped" not in spec["schema"]["properties"]
    elif found == "json_object":
        assert "plans" in planner["response_format"]["schema"]["properties"]
    else:
        assert "response_format" not in planner
    assert "probe" in set(ctx.ledger.search_calls()["role"])  # metered like any call


def test_a_refused_schema_is_asked_again_without_it_and_not_again(tmp_path: Path) -> None:
    # llama.cpp's server takes json_object (the probe passes) but cannot compile the planner's
    # schema into a grammar: a 400. The call is sent again without a response format, and the
    # role stops asking for one; the answer is the plan, not the catalog's fallback.
    refused = ("status", 400, None)
    with fake_provider(
        [refused, ("say", '{"ok": true}'), refused], default=("say", plans_json())
    ) as provider:
        ctx = openai_account(tmp_path, provider.base_url)
        with search_account(ctx, 1, OpenAIUpstream(provider.base_url, "k")) as opened:
            inputs = improver_inputs(ctx, 1, ["c000"])
            first = llm_planner.plan_all(opened, inputs, [], {"c000": {}})
            second = llm_planner.plan_all(opened, inputs, [], {"c000": {}})
    planner = provider.requests[2:]
    assert ["response_format" in r for r in planner] == [True, False, False]
    assert first.fallbacks == {} and second.fallbacks == {} and first.plans
    events = (ctx.run.root / "search" / "epoch-1" / "calls.jsonl").read_text()
    assert "response format refused" in events


def test_yaml_off_is_the_off_response_format() -> None:
    # `response_format: off` in YAML (or --set ...=off) arrives as false.
    assert ImproverConfig(name="m", response_format=False).response_format == "off"


def test_the_response_format_setting_wins_over_the_probe(tmp_path: Path) -> None:
    with fake_provider([], default=("say", plans_json())) as provider:
        ctx = openai_account(tmp_path, provider.base_url, response_format="off")
        with search_account(ctx, 1, OpenAIUpstream(provider.base_url, "k")) as opened:
            assert opened.structured() == ""
    assert provider.requests == []


def test_an_agents_conversation_is_cut_oldest_first() -> None:
    messages = [
        {"role": "system", "content": "s" * 30},
        {"role": "user", "content": "u" * 30},
        {"role": "tool", "content": "A" * 3000},
        {"role": "tool", "content": "B" * 3000},
    ]
    # 4 messages: 12 + 12 + 1200 + 1200 tokens + 4 x 8 framing = 2456; A cut to 239
    # characters (96 tokens) leaves 1352
    assert fit_conversation(messages, 1500, None)
    assert messages[2]["content"].startswith("A" * 200 + " [... 2800 chars cut")
    assert messages[3]["content"] == "B" * 3000  # the newest result is whole
    assert not fit_conversation(messages, 100, None)  # the task itself stays whole


def seed_hooks() -> Any:
    path = Path(seed_template()) / "agent" / "hooks.py"
    spec = importlib.util.spec_from_file_location("seed_hooks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_seed_cuts_its_oldest_tool_result_to_fit_the_targets_window() -> None:
    hooks = seed_hooks()
    messages = [
        {"role": "system", "content": "s" * 300},
        {"role": "user", "content": "u" * 300},
        {"role": "tool", "content": "A" * 1500},
        {"role": "tool", "content": "B" * 600},
    ]
    # window 1000: the prompt may use 1000 - 250 (a quarter for the reply) - 50 (5%) = 700;
    # it needs ceil(2700 / 2.5) + 4 x 8 = 1112; with A cut to 200 + 39 characters of marker,
    # ceil(1439 / 2.5) + 32 = 608
    assert hooks.fit_context(messages, None, 1000) == 1
    assert messages[2]["content"] == "A" * 200 + " [... 1300 chars cut to fit the window]"
    assert messages[3]["content"] == "B" * 600 and hooks.estimated_tokens(messages, None) == 608
    assert hooks.fit_context(messages, None, 1000) == 0  # it fits: nothing more is cut


def test_the_targets_window_reaches_the_harness(tmp_path: Path) -> None:
    harness = tmp_path / "probe"
    harness.mkdir()
    code = "import os; open('ctx.txt', 'w').write(os.environ.get('HARNESSPRO_CONTEXT_TOKENS', '-'))"
    (harness / "harness.toml").write_text(
        f'[harness]\ncommand = ["{{python}}", "-c", {json.dumps(code)}]\n'
    )
    inputs = inputs_for_harness(harness)
    result = run_rollout(replace(inputs, model=ModelConfig(context_tokens=4096)))
    assert result.workspace["ctx.txt"] == b"4096"
    assert run_rollout(inputs).workspace["ctx.txt"] == b"-"  # unknown: not passed


def test_the_editing_agent_fits_its_window_and_runs_calls_written_as_text(
    tmp_path: Path,
) -> None:
    ctx = llm_run(tmp_path, {"context_tokens": 4096, "request": {"max_tokens": 512}})
    worktree = tmp_path / "work"
    shutil.copytree(seed_template(), worktree, ignore=shutil.ignore_patterns("__pycache__"))
    call = {"name": "create_file", "arguments": {"file_path": "notes.md", "file_text": "hi\n"}}
    upstream = ReplayUpstream([reply(f"<tool_call>{json.dumps(call)}</tool_call>"), reply("Done.")])
    plan = Plan(
        "c000", "balanced", "notice-6", "r" * 1000, 0.0, -0.1, kind="free", change="c" * 2000
    )
    with search_account(ctx, 1, upstream) as opened:
        note = LLMEditor(opened, opened.improver)(worktree, plan, "")
    assert "done after 2 steps; wrote notes.md" in note
    assert (worktree / "notes.md").read_text() == "hi\n"
    limit = 4096 - 512 - 204
    first = upstream.requests[0]
    assert message_tokens(first["messages"], first["tools"]) <= limit * 0.6
    log = (ctx.run.root / "search" / "epoch-1" / "calls.jsonl").read_text().splitlines()
    cuts = [json.loads(line)["cut"] for line in log if '"cut"' in line]
    assert any(c.startswith("plan: ") for c in cuts[0])


def test_the_improver_timeout_reaches_the_upstream() -> None:
    improver = ImproverConfig(upstream="openai", base_url="http://127.0.0.1:9/v1", timeout_s=7)
    upstream = make_improver_upstream(improver)
    assert isinstance(upstream, OpenAIUpstream) and upstream.client.timeout == 7


def test_the_editors_tool_allowance_covers_the_agents_tools() -> None:
    assert message_tokens([], agent.TOOLS) <= TOOLS_TOKENS
