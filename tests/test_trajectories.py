"""export-trajectories on a finished tiny run: one JSON line per rollout, rewards as in the
ledger, the test split only when asked for."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.execution.gateway.chatlog import ChatLog, assemble, conversation


def ledger_rows(run_dir: Path, split: str) -> dict[str, tuple[object, ...]]:
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        rows = db.execute(
            "SELECT key, pass, official_pass, candidate_id, cost, output FROM rollouts "
            "WHERE split = ?",
            (split,),
        ).fetchall()
    return {str(r[0]): r[1:] for r in rows}


def export(run_dir: Path, out: Path, split: str, fmt: str) -> list[dict[str, object]]:
    args = ["export-trajectories", str(run_dir), "--split", split, "--format", fmt]
    assert main([*args, "--out", str(out)]) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.mark.slow
def test_search_splits_carry_synthesized_verdicts(finished_tiny_run: Path, tmp_path: Path) -> None:
    for split in ("coreset", "validation"):
        expected = ledger_rows(finished_tiny_run, split)
        lines = export(finished_tiny_run, tmp_path / f"{split}.jsonl", split, "openai-chat")
        assert len(lines) == len(expected) > 0  # one record per rollout
        for line in lines:
            meta = line["metadata"]
            assert isinstance(meta, dict) and meta["split"] == split
            passed, _, candidate, cost, output = expected[meta["rollout_key"]]
            assert meta["reward"] == float(passed)  # type: ignore[arg-type]
            assert meta["reward_source"] == "synthesized test"
            assert (meta["candidate_id"], meta["cost"]) == (candidate, cost)
            assert meta["tokens"]["output"] == output
            messages = line["messages"]
            assert isinstance(messages, list)
            # system prompt, the task, then the agent's turns with its tool calls and results
            assert [m["role"] for m in messages[:3]] == ["system", "user", "assistant"]
            assert any(m["role"] == "tool" for m in messages)
            assert line["tools"] and line["tools"][0]["function"]["name"] == "bash"  # type: ignore[index]
    test_keys = set(ledger_rows(finished_tiny_run, "test"))
    assert test_keys  # the run did have a test split; none of it leaked above
    for split in ("coreset", "validation"):
        text = (tmp_path / f"{split}.jsonl").read_text()
        assert not any(key in text for key in test_keys)


@pytest.mark.slow
def test_test_split_only_when_asked_with_official_verdicts(
    finished_tiny_run: Path, tmp_path: Path
) -> None:
    expected = ledger_rows(finished_tiny_run, "test")
    lines = export(finished_tiny_run, tmp_path / "test.jsonl", "test", "jsonl-rewards")
    assert len(lines) == len(expected)
    for line in lines:
        official = expected[str(line["rollout_key"])][1]
        assert line["split"] == "test" and line["reward"] == float(official)  # type: ignore[arg-type]
        assert line["reward_source"] == "official test"
        prompt, completion = line["prompt"], line["completion"]
        assert [m["role"] for m in prompt] == ["system", "user"]  # type: ignore[union-attr]
        assert completion[0]["role"] == "assistant"  # type: ignore[index]


def test_bad_run_folder_is_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.jsonl"
    assert main(["export-trajectories", str(tmp_path), "--out", str(out)]) == 2
    assert "no ledger.sqlite" in capsys.readouterr().err and not out.exists()


def test_chat_log_round_trip_stores_only_new_messages() -> None:
    log = ChatLog()
    system, user = {"role": "system", "content": "s"}, {"role": "user", "content": "u"}
    first = {"role": "assistant", "content": "a1"}
    log.add("t", {"messages": [system, user], "tools": [{"x": 1}]}, first)
    tool = {"role": "tool", "tool_call_id": "1", "content": "out"}
    log.add("t", {"messages": [system, user, first, tool], "tools": [{"x": 1}]}, {"content": "z"})
    second = json.loads(log.lines[1])
    assert second["prefix"] == 3 and second["messages"] == [tool] and "tools" not in second
    chat = conversation("\n".join(log.lines))
    assert list(chat.messages) == [system, user, first, tool, {"content": "z"}]
    assert list(chat.tools) == [{"x": 1}] and chat.calls == 2


def test_stream_chunks_assemble_into_a_tool_call() -> None:
    chunks = [
        {"choices": [{"delta": {"content": "run "}}]},
        {
            "choices": [
                {"delta": {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "ba"}}]}}
            ]
        },
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [{"index": 0, "function": {"name": "sh", "arguments": "{}"}}]
                    }
                }
            ]
        },
    ]
    message = assemble(chunks)
    assert message["content"] == "run "
    assert message["tool_calls"][0]["function"] == {"name": "bash", "arguments": "{}"}
    assert message["tool_calls"][0]["id"] == "c1"
