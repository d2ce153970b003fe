"""Named, parameterised harness edits with the lever they touch and their expected effect.

Expected effects are relative changes a mechanism usually brings (pass-rate points, share of
cost); the planner scales them by how often the problems they address were seen, and the
next epoch checks the prediction against what was measured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

CONCISE_PROMPT = """You are a terminal agent with one tool, `bash` (a fresh shell per call; use
absolute paths). Be concise: keep replies to a sentence or two. Avoid unnecessary exploration:
read only what the task needs, then act. When done, reply without calling a tool.
"""
VERIFY_PROMPT = """Before you reply that you are done, verify your work: list the outputs the
task asks for and check their content against the instructions; redo any step that failed.
"""


@dataclass(frozen=True)
class Mechanism:
    """One catalog entry."""

    name: str
    lever: str
    summary: str
    expected_pass: float
    expected_cost: float
    addresses: tuple[str, ...]
    edit: Callable[[Path], None]

    def apply(self, worktree: Path) -> None:
        """Edit the harness in `worktree` in place."""
        self.edit(worktree)


def _update_config(worktree: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = worktree / "harness.yaml"
    config = yaml.safe_load(path.read_text())
    change(config)
    path.write_text(yaml.safe_dump(config, sort_keys=False))


def _concise_prompt(worktree: Path) -> None:
    (worktree / "prompts" / "system.md").write_text(CONCISE_PROMPT)


def _verify_before_submit(worktree: Path) -> None:
    (worktree / "prompts" / "verify.md").write_text(VERIFY_PROMPT)

    def change(config: dict[str, Any]) -> None:
        extra = config["prompts"].setdefault("system_extra", [])
        if "prompts/verify.md" not in extra:
            extra.append("prompts/verify.md")

    _update_config(worktree, change)


def _compress_output(worktree: Path) -> None:
    _update_config(
        worktree, lambda c: c.update(compress_output={"max_chars": 1500, "head": 15, "tail": 10})
    )


def budget_notices(first: int, second: int, block: int) -> Callable[[Path], None]:
    """The notice-notice-block pattern, appended to tool results so the prefix stays cached."""

    def edit(worktree: Path) -> None:
        notices = [
            {
                "after": first,
                "text": "Use parallel calls where you can and avoid redundant checks.",
            },
            {"after": second, "text": "Focus on finishing: verify the outputs and submit."},
        ]
        _update_config(worktree, lambda c: c.update(notices=notices, block_after=block))

    return edit


def _step_cap(worktree: Path) -> None:
    _update_config(worktree, lambda c: c.update(max_steps=12))


def _high_effort(worktree: Path) -> None:
    _update_config(worktree, lambda c: c.setdefault("request", {}).update(reasoning_effort="high"))


CATALOG: dict[str, Mechanism] = {
    m.name: m
    for m in (
        Mechanism(
            "concise_prompt",
            "prompt",
            "shorter, less redundant system prompt",
            0.0,
            -0.30,
            ("verbose_replies", "exploration"),
            _concise_prompt,
        ),
        Mechanism(
            "compress_output",
            "context management",
            "head/tail compression of long tool outputs",
            0.0,
            -0.20,
            ("long_tool_output",),
            _compress_output,
        ),
        Mechanism(
            "budget_notices",
            "step cap",
            "notices after 4 and 8 tool calls, block after 16 (the 14/26/44 pattern, scaled)",
            0.0,
            -0.10,
            ("repeated_commands", "exploration"),
            budget_notices(4, 8, 16),
        ),
        Mechanism(
            "verify_before_submit",
            "answer extraction",
            "check outputs against the instructions before submitting",
            0.10,
            0.08,
            ("task_failures", "unrecovered_errors"),
            _verify_before_submit,
        ),
        Mechanism(
            "step_cap",
            "step cap",
            "cap the loop at 12 model calls",
            -0.05,
            -0.10,
            ("many_tool_calls",),
            _step_cap,
        ),
        Mechanism(
            "high_effort",
            "reasoning effort",
            "request reasoning_effort high",
            0.06,
            0.35,
            ("task_failures",),
            _high_effort,
        ),
    )
}
