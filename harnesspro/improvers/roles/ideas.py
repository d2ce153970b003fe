"""The scripted improver's own ideas: free-form harness changes outside the catalog.

The offline stand-in for an llm planner and editor proposes these in its own words (prompt
text it composes, hooks it writes as code), so the open-ended path - free-form plans, a
coding-agent editor, the in-effect gate, verdicts - runs end to end without a model. Each
idea says which diagnosis kinds it answers, its levers and files, and a predicted effect;
`change` is the plan text a planner writes, and `write` is what an editor does with it,
reading its parameters back from that text only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from harnesspro.core import yamlio

Files = Mapping[str, str]
QUOTED = re.compile(r'"([^"]{8,})"')
AFTER = re.compile(r"after (\d+) tool calls")

WORDINGS = {
    "recheck-outputs": (
        "Before you finish, open each file the task asks for and confirm its content matches "
        "the request; run any step whose command failed again.",
        "When you think you are done, double-check the requested outputs against the "
        "instructions and redo whatever went wrong.",
    ),
    "brief-replies": (
        "Keep every message to one or two short sentences: spend the effort on the commands, "
        "not on commentary.",
        "Say little between commands; a brief note is enough, then act.",
    ),
    "read-less": (
        "Look at large files piece by piece with head, tail, grep or wc rather than printing "
        "them whole.",
        "Never dump an entire big file: sample it with head or tail and search it with grep.",
    ),
    "checkpoint-notice": (
        "Checkpoint: skip redundant re-checks and focus on finishing the remaining steps.",
        "Checkpoint: you have looked around enough; focus on finishing the task now.",
    ),
    "failure-hint": (
        "That command failed: fix it and run it again before you move on.",
        "The last command did not succeed; correct it and retry it before going further.",
    ),
}

CHECKPOINT_CODE = '''"""A checkpoint notice, once, after N tool calls (written by the improver)."""


def checkpoint(agent, after, message):
    if agent.tool_calls >= after and not getattr(agent, "checkpoint_said", False):
        agent.checkpoint_said = True
        return "[notice] " + message
    return None
'''

FAILURE_CODE = '''"""A hint added to a tool result showing a failure (written by the improver)."""

FAILED = ("command not found", "No such file", "Traceback (most recent call last)", "rror:")


def failure_hint(agent, text, message):
    if any(marker in text for marker in FAILED):
        return text + "\\n\\n[hint] " + message
    return text
'''


def _config(files: Files) -> dict[str, object]:
    loaded = yamlio.load(files.get("harness.yaml", "")) or {}
    return loaded if isinstance(loaded, dict) else {}


def _dump(config: dict[str, object]) -> str:
    return yamlio.dump(config)


def _add_hook(files: Files, point: str, spec: Mapping[str, object]) -> str:
    config = _config(files)
    hooks = config.setdefault("hooks", {})
    assert isinstance(hooks, dict)
    hooks[point] = [*(hooks.get(point) or []), spec]
    return _dump(config)


def _system_extra(files: Files, rel: str, text: str) -> dict[str, str]:
    config = _config(files)
    prompts = config.setdefault("prompts", {})
    assert isinstance(prompts, dict)
    prompts["system_extra"] = [*(prompts.get("system_extra") or []), rel]
    return {rel: text + "\n", "harness.yaml": _dump(config)}


def _quoted(change: str) -> str:
    found = QUOTED.search(change)
    if not found:
        raise ValueError("the change names no text to add")
    return found.group(1)


def _recheck(files: Files, change: str) -> dict[str, str]:
    instance = files.get("prompts/instance.md", "")
    return {"prompts/instance.md": instance.rstrip("\n") + "\n\n" + _quoted(change) + "\n"}


def _brief(files: Files, change: str) -> dict[str, str]:
    return _system_extra(files, "prompts/brief.md", _quoted(change))


def _read_less(files: Files, change: str) -> dict[str, str]:
    return _system_extra(files, "prompts/reading.md", _quoted(change))


def _checkpoint(files: Files, change: str) -> dict[str, str]:
    after = AFTER.search(change)
    spec = {
        "use": "agent.checkpoint:checkpoint",
        "after": int(after.group(1)) if after else 3,
        "message": _quoted(change),
    }
    return {
        "agent/checkpoint.py": CHECKPOINT_CODE,
        "harness.yaml": _add_hook(files, "on_step", spec),
    }


def _failure(files: Files, change: str) -> dict[str, str]:
    spec = {"use": "agent.failure_hint:failure_hint", "message": _quoted(change)}
    return {
        "agent/failure_hint.py": FAILURE_CODE,
        "harness.yaml": _add_hook(files, "on_tool_result", spec),
    }


@dataclass(frozen=True)
class Idea:
    """One free-form change the scripted improver knows how to propose and write."""

    name: str
    levers: tuple[str, ...]
    files: tuple[str, ...]
    addresses: tuple[str, ...]
    predicted_pass: float
    predicted_cost: float
    describe: Callable[[str, int], str]
    """(wording, tool calls) -> the change in words."""
    write: Callable[[Files, str], dict[str, str]]
    """(current files, the change in words) -> the files to write."""


IDEAS = {
    idea.name: idea
    for idea in (
        Idea(
            "recheck-outputs", ("prompt", "answer extraction"), ("prompts/instance.md",),
            ("task_failures", "unrecovered_errors"), 0.06, 0.06,
            lambda w, n: f'Append to the instance prompt the paragraph "{w}"', _recheck,
        ),
        Idea(
            "brief-replies", ("prompt",), ("prompts/brief.md", "harness.yaml"),
            ("verbose_replies",), -0.01, -0.2,
            lambda w, n: f'Add a system prompt file prompts/brief.md saying "{w}"', _brief,
        ),
        Idea(
            "read-less", ("retrieval policy",), ("prompts/reading.md", "harness.yaml"),
            ("long_tool_output", "exploration"), 0.0, -0.1,
            lambda w, n: f'Add a system prompt file prompts/reading.md saying "{w}"',
            _read_less,
        ),
        Idea(
            "checkpoint-notice", ("step cap", "context management"),
            ("agent/checkpoint.py", "harness.yaml"),
            ("many_tool_calls", "repeated_commands", "exploration"), 0.0, -0.1,
            lambda w, n: (
                f"Write a new on_step hook agent/checkpoint.py that, once, after {n} tool calls "
                f'appends the notice "{w}" to the tool result, and register it in harness.yaml'
            ),
            _checkpoint,
        ),
        Idea(
            "failure-hint", ("retry/timeout policy",), ("agent/failure_hint.py", "harness.yaml"),
            ("unrecovered_errors",), 0.03, 0.02,
            lambda w, n: (
                "Write a new on_tool_result hook agent/failure_hint.py that appends the hint "
                f'"{w}" to a tool result showing a failed command, and register it'
            ),
            _failure,
        ),
    )
}  # fmt: skip


def wording(name: str, salt: str) -> str:
    """One of the idea's phrasings, chosen by `salt` (so text varies between proposals)."""
    options = WORDINGS[name]
    return options[sum(map(ord, salt)) % len(options)]
