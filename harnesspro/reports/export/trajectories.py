"""Trajectory export for policy training: every rollout of a split with its reward.

`harnesspro export-trajectories RUN --split coreset|validation|test --format F --out FILE`
writes one JSON line per rollout of the split, messages and tool calls rebuilt from the
rollout's gateway chat log (`chat.jsonl`). Formats:

- `openai-chat`: `{"messages": [...], "tools": [...], "metadata": {...}}`, the OpenAI
  fine-tuning chat layout (system, user, assistant with `tool_calls`, tool results).
- `jsonl-rewards`: `{"prompt": [...], "completion": [...], "reward": r, ...}`, the
  conversational prompt/completion layout RL trainers read: the prompt is every message
  before the first assistant turn, the completion the rest.

Rewards: on the search splits (coreset, validation) the frozen synthesized test's verdict
(1.0 / 0.0), the score the search itself used; on the test split, only when that split is
asked for explicitly, the official test's verdict. An infrastructure failure has no reward
(null), never 0. Every record names its split, candidate, task, attempt, cost (null when the
model is unpriced) and tokens.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from harnesspro.core.ledger import Ledger
from harnesspro.core.metrics import TOKEN_COLUMNS
from harnesspro.execution.gateway.chatlog import conversation
from harnesspro.reports.rollout_frames import on_split
from harnesspro.run.folder import RunFolder

ExportSplit = Literal["coreset", "validation", "test"]
ExportFormat = Literal["openai-chat", "jsonl-rewards"]
SPLITS: tuple[ExportSplit, ...] = ("coreset", "validation", "test")
FORMATS: tuple[ExportFormat, ...] = ("openai-chat", "jsonl-rewards")


def _reward(row: Mapping[Any, Any], split: ExportSplit) -> tuple[float | None, str]:
    """The reward and where it came from."""
    if row["status"] == "infra_error":
        return None, "none: infrastructure failure"
    column, source = ("official_pass", "official test") if split == "test" else (
        "pass", "synthesized test"
    )  # fmt: skip
    value = row[column]
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None, "none: not graded"
    return float(value), source


def _number(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _count(value: Any) -> int | None:
    return None if _number(value) is None else int(value)


def metadata(row: Mapping[Any, Any], split: ExportSplit) -> dict[str, Any]:
    """What every record carries beside its messages."""
    reward, source = _reward(row, split)
    return {
        "split": split,
        "rollout_key": str(row["key"]),
        "candidate_id": str(row["candidate_id"]),
        "task_id": str(row["task_id"]),
        "attempt": int(row["attempt"]),
        "epoch": int(row["epoch"]),
        "status": str(row["status"]),
        "reward": reward,
        "reward_source": source,
        "cost": _number(row["cost"]),
        # null when the provider reported no usage, never 0
        "tokens": {c: _count(row[c]) for c in [*TOKEN_COLUMNS, "reasoning"]},
        "latency_s": _number(row["latency_s"]),
    }


def record(chat_text: str, meta: dict[str, Any], fmt: ExportFormat) -> dict[str, Any]:
    """One rollout's line in the requested format."""
    chat = conversation(chat_text)
    messages = list(chat.messages)
    if fmt == "openai-chat":
        return {"messages": messages, "tools": list(chat.tools), "metadata": meta}
    cut = next((i for i, m in enumerate(messages) if m.get("role") == "assistant"), len(messages))
    return {
        "prompt": messages[:cut],
        "completion": messages[cut:],
        "tools": list(chat.tools),
        **meta,
    }


def records(run_dir: Path, split: ExportSplit, fmt: ExportFormat) -> Iterator[dict[str, Any]]:
    """Every rollout of `split` in `run_dir`, in ledger order."""
    ledger = Ledger(run_dir / "ledger.sqlite")
    try:
        rows = on_split(ledger.rollouts(), split).to_dict("records")
    finally:
        ledger.close()
    folder = RunFolder(run_dir)
    for row in rows:
        yield record(folder.chat_log(str(row["key"])), metadata(row, split), fmt)


def export(run_dir: Path, split: ExportSplit, fmt: ExportFormat, out: Path) -> int:
    """Write the records to `out` atomically; returns how many were written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.")
    count = 0
    try:
        with os.fdopen(handle, "w") as stream:
            for line in records(run_dir, split, fmt):
                stream.write(json.dumps(line) + "\n")
                count += 1
        os.replace(name, out)
    finally:
        Path(name).unlink(missing_ok=True)
    return count
