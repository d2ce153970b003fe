"""Recorded agent sessions, read through small adapters, as traces the analyzer reads.

An adapter is any object with two methods (see `SessionAdapter`):

- `matches(path) -> bool`: whether this file is a session it reads;
- `read(path) -> Session`: the session, its tool calls as trajectory events (the harness
  contract's `model_call` / `tool_call` / `tool_result` / `submit` lines), usage and cost when
  recorded, and a verdict when one is known (None otherwise).

Built in (`ADAPTERS`): `harnesspro-chat` (the `chat.jsonl` HarnessPro's gateway writes, with
the `gateway.jsonl` beside it for usage and cost) and `mini-swe-agent` (its `*.traj.json`
trajectory files, tool-calling or fenced-bash). `--adapter module:Class` adds another.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from harnesspro.core.records import Trace, Usage, total_usage
from harnesspro.execution.gateway.chatlog import conversation

FENCE = re.compile(r"```(?:bash|sh)?\n(.*?)```", re.S)
OUTPUT_CHARS = 2000  # what the seed harness keeps of a tool result in its trajectory


@dataclass(frozen=True)
class Session:
    """One recorded session, as the analyzer reads it."""

    key: str
    task_id: str
    """A digest of the first user message: sessions of the same task share it."""
    instruction: str
    trajectory: str
    usage: Usage | None
    """None when the source keeps no token counts or a call reported none: unknown, not 0."""
    cost: float | None
    n_calls: int
    passed: bool | None
    """None: no verdict recorded; the session is analysed for cost and behaviour only."""
    source: str

    def trace(self) -> Trace:
        """As an analyzer trace; an unknown verdict is carried as a pass, and the analysis
        drops the verdict-based diagnoses of such sessions (see `retro.run`)."""
        u = self.usage
        return Trace(
            self.key, "retro", self.task_id, self.passed is not False, self.trajectory,
            None if u is None else u.output, self.n_calls,
            None if u is None else u.uncached_input, None if u is None else u.cached_input,
        )  # fmt: skip


class SessionAdapter(Protocol):
    def matches(self, path: Path) -> bool: ...

    def read(self, path: Path) -> Session: ...


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return "" if content is None else str(content)


def _commands(message: Mapping[str, Any]) -> list[str]:
    calls = message.get("tool_calls") or []
    if calls:
        found = []
        for call in calls:
            try:
                found.append(str(json.loads(call["function"]["arguments"])["command"]))
            except (KeyError, TypeError, ValueError):
                found.append(str((call.get("function") or {}).get("arguments", "")))
        return found
    return [c.strip() for c in FENCE.findall(_text(message.get("content")))[:1]]


def events(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-style messages as trajectory events: each assistant turn is a model call, its
    commands tool calls, the next tool (or, in fenced mode, user) turns their results; an
    assistant turn without a command is the submission."""
    out: list[dict[str, Any]] = []
    step, waiting = 0, 0
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            step += 1
            content = _text(message.get("content"))
            out.append({"type": "model_call", "step": step, "ts": 0, "content": content})
            commands = _commands(message)
            out += [{"type": "tool_call", "step": step, "ts": 0, "command": c} for c in commands]
            waiting = len(commands)
            if not commands:
                out.append({"type": "submit", "step": step, "ts": 0, "content": content})
        elif waiting and role in ("tool", "user"):
            text = _text(message.get("content"))
            result = {"type": "tool_result", "step": step, "ts": 0, "chars": len(text)}
            out.append({**result, "output": text[:OUTPUT_CHARS]})
            waiting -= 1
    return out


def _task_id(messages: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    instruction = next((_text(m.get("content")) for m in messages if m.get("role") == "user"), "")
    return "task-" + hashlib.sha256(instruction.encode()).hexdigest()[:10], instruction


def session_of(
    path: Path, messages: Sequence[Mapping[str, Any]], usage: Usage | None, cost: float | None,
    n_calls: int,
) -> Session:  # fmt: skip
    task_id, instruction = _task_id(messages)
    lines = "\n".join(json.dumps(e) for e in events(messages))
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    return Session(key, task_id, instruction, lines, usage, cost, n_calls, None, str(path))


class HarnessProChat:
    """`chat.jsonl` from a HarnessPro rollout folder (usage from `gateway.jsonl` beside it)."""

    def matches(self, path: Path) -> bool:
        return path.name == "chat.jsonl"

    def read(self, path: Path) -> Session:
        chat = conversation(path.read_text())
        metered = path.with_name("gateway.jsonl")
        text = metered.read_text() if metered.is_file() else ""
        calls = [json.loads(line) for line in text.splitlines() if line.strip()]
        # a call logged with null parts reported no usage: the session's tokens are unknown
        parts = [[c.get(k) for k in USAGE_FIELDS] for c in calls]
        known = bool(calls) and all(isinstance(v, int) for row in parts for v in row)
        usage = total_usage(Usage(*row) for row in parts) if known else None
        costs = [c.get("cost") for c in calls]
        # no metering record, or an unpriced call: the cost is unknown, never 0
        cost = None if not calls or None in costs else float(sum(costs))
        return session_of(path, chat.messages, usage, cost, len(calls) or chat.calls)


USAGE_FIELDS = ("uncached_input", "cached_input", "cache_write", "output", "reasoning")


class MiniSweAgent:
    """A mini-swe-agent trajectory file (`trajectory_format: mini-swe-agent-*`)."""

    def matches(self, path: Path) -> bool:
        if not path.name.endswith(".json"):
            return False
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return False
        return isinstance(data, dict) and str(data.get("trajectory_format", "")).startswith(
            "mini-swe-agent"
        )

    def read(self, path: Path) -> Session:
        data = json.loads(path.read_text())
        messages = [m for m in data.get("messages") or [] if isinstance(m, Mapping)]
        stats = (data.get("info") or {}).get("model_stats") or {}
        cost = stats.get("instance_cost")
        calls = int(stats.get("api_calls") or sum(m.get("role") == "assistant" for m in messages))
        # mini-swe-agent keeps dollars but not token parts: usage is unknown
        return session_of(path, messages, None, float(cost) if cost else None, calls)


ADAPTERS: dict[str, str] = {
    "harnesspro-chat": "harnesspro.improvers.retro.sessions:HarnessProChat",
    "mini-swe-agent": "harnesspro.improvers.retro.sessions:MiniSweAgent",
}


def load_adapter(spec: str) -> SessionAdapter:
    """A registered adapter by name, or any `module:Class`."""
    module, _, name = ADAPTERS.get(spec, spec).partition(":")
    adapter: SessionAdapter = getattr(importlib.import_module(module), name)()
    return adapter


def read_sessions(folder: Path, adapters: Iterable[SessionAdapter]) -> list[Session]:
    """Every file under `folder` that one of the adapters reads, in path order."""
    chosen = list(adapters)
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        adapter = next((a for a in chosen if a.matches(path)), None)
        if adapter is not None:
            found.append(adapter.read(path))
    return found
