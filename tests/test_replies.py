"""Replies read as real models write them: the JSON in a reply after reasoning blocks, fences
and prose, repaired where models get it wrong; fields normalised rather than rejected; and the
messy-reply replay suite (tests/replies/, scored by scripts/replay_replies.py) at >= 90%
usable per role, every reply's outcome as written by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harnesspro.core.records import Trace
from harnesspro.improvers import lenient
from harnesspro.improvers.analyzer import llm as llm_analyzer
from harnesspro.improvers.ask import parse
from harnesspro.improvers.editor import agent
from harnesspro.improvers.tolerant import calls_in_text, json_values, strip_reasoning

ROOT = Path(__file__).resolve().parents[1]


def test_the_replay_suite_is_usable_at_ninety_percent_per_role() -> None:
    script = ROOT / "scripts" / "replay_replies.py"
    done = subprocess.run(
        [sys.executable, str(script), "--json"], capture_output=True, text=True, cwd=ROOT
    )
    report = json.loads(done.stdout)
    assert set(report) == {"planner", "analyzer", "synthesizer", "editor"}
    for role, row in report.items():
        assert row["replies"] >= 30, role
        assert row["differ"] == [], role  # each reply as its hand-written `expect` says
        assert row["usable"] / row["replies"] >= 0.9, role
    assert done.returncode == 0


def test_the_replay_files_are_what_their_writer_writes(tmp_path: Path) -> None:
    """The committed files are the writer's output (it writes beside itself: run a copy)."""
    writer = ROOT / "tests" / "replies" / "write_replies.py"
    copy = tmp_path / "write_replies.py"
    copy.write_text(writer.read_text())
    subprocess.run([sys.executable, str(copy)], check=True)
    for role in ("planner", "analyzer", "synthesizer", "editor"):
        assert (tmp_path / f"{role}.jsonl").read_text() == (
            ROOT / "tests" / "replies" / f"{role}.jsonl"
        ).read_text(), role


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ('<think>use {x}</think>\n```json\n{"a": 1}\n```\nHope {this} helps', [{"a": 1}]),
        ('so {a} then {b}.\n</think>\n{"a": 2}', [{"a": 2}]),
        ('{"a": [1, 2,],}', [{"a": [1, 2]}]),
        ("{'a': True, 'b': None}", [{"a": True, "b": None}]),
        ('{"a": 1, // a comment\n "b": false}', [{"a": 1, "b": False}]),
        ('draft {"a": 1} final {"a": 2}', [{"a": 1}, {"a": 2}]),
        ('{"code": "grep -E \'\\d+\' f"}', [{"code": "grep -E '\\d+' f"}]),
        ('{"re": "r\'\\berror\\b\'"}', [{"re": "r'\\berror\\b'"}]),  # not backspaces
        ('{"tab": "a\\tb"}', [{"tab": "a\tb"}]),  # a real escape stays one
        ('{"code": "line 1\nline 2"}', [{"code": "line 1\nline 2"}]),  # a raw newline
        (
            '{"s": "a } in a string", "t": "```json\\n{}\\n```"}',
            [{"s": "a } in a string", "t": "```json\n{}\n```"}],
        ),  # fmt: skip
        ('{"plans": [{"a": 1}, {"b": 2}, {"c": "cut of', [{"plans": [{"a": 1}, {"b": 2}]}]),
        ("I'm sorry, I can't help with that.", []),
    ],
)
def test_json_values_read_replies_as_models_write_them(text: str, values: list[object]) -> None:
    assert json_values(text) == values


def test_reasoning_blocks_are_dropped_even_unclosed() -> None:
    assert strip_reasoning("<thinking>a</thinking>b<reasoning>c") == "b"
    assert strip_reasoning("hidden</think>shown") == "shown"


def test_lever_names_in_other_words_map_to_the_catalogs() -> None:
    cases = {
        "System prompt wording": "prompt",
        "Tool output truncation": "context management",
        "max steps / tool-call budget": "step cap",
        "retries and timeouts": "retry/timeout policy",
        "tool definitions": "tool schema",
        "Final answer verification": "answer extraction",
        "reasoning_effort": "reasoning effort",
        "step-cap": "step cap",
        "vibes": None,
    }
    assert {text: lenient.lever(text) for text in cases} == cases


def test_directives_numbers_and_names_are_normalised() -> None:
    assert lenient.directive("Cost First") == "cost-first"
    assert lenient.directive("PERFORMANCE_FIRST") == "performance-first"
    assert lenient.directive("balanced (cost vs performance)") == "balanced"
    assert lenient.clamped(-1.0, 5.0)("-20%") == -0.2
    assert lenient.clamped(-1.0, 1.0)("7") == 1.0
    assert lenient.slug("Notice After 6 Calls!") == "notice-after-6-calls"
    assert lenient.trimmed(20)("x" * 50) == "x" * 14 + " [...]"


def test_tool_calls_written_as_text_are_calls() -> None:
    text = '<tool_call>{"name": "create_file", "arguments": {"path": "a", "content": "b"}}'
    (call,) = calls_in_text(text + "</tool_call>", {"write_file"}, {"create_file": "write_file"})
    assert call["function"] == {
        "name": "write_file",
        "arguments": json.dumps({"path": "a", "content": "b"}),
    }
    assert calls_in_text("Done: the notice is in place.", {"write_file"}) == []
    assert agent.arguments('{"file_path": "x", "cmd": "ls",}') == {"path": "x", "command": "ls"}


def test_an_echo_of_the_analyzers_inputs_is_no_answer() -> None:
    """gemma-3-270m answered the analyzer with its inputs (the llama.cpp acceptance run)."""
    tasks, observed = [{"task_id": "t", "rollouts": 2}], [{"task_id": "t", "kind": "x"}]
    echo = json.dumps({"candidate": "c000", "tasks": tasks, "observed": observed})
    traces = [Trace("k0", "c000", "t", False, "", 10, 3)]
    outcome = parse(echo, llm_analyzer.AnalyzerReply, llm_analyzer.checker(traces, True))
    assert outcome == "(top level): Value error, the reply has neither `diagnoses` nor `excerpt`"
    empty = parse('{"diagnoses": []}', llm_analyzer.AnalyzerReply)
    assert isinstance(empty, llm_analyzer.AnalyzerReply) and empty.diagnoses == []
