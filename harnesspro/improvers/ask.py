"""Structured improver calls: a JSON answer validated with pydantic, one retry with the
validation error, then a reason to fall back on. Never raises for a bad answer."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from harnesspro.improvers.account import SearchAccount, SearchUnavailable

T = TypeVar("T", bound=BaseModel)
ATTEMPTS = 2  # the first answer and one retry with the validation error
FENCE_OPEN = re.compile(r"```(?:json)?[ \t]*\n")


def load_prompt(name: str) -> str:
    """A versioned prompt file of harnesspro/improvers/prompts/, e.g. `planner.v1`."""
    return (resources.files("harnesspro.improvers") / "prompts" / f"{name}.md").read_text()


def render(title: str, data: Any) -> str:
    """Inputs as a fenced JSON block under a one-line title."""
    return f"{title}\n\n```json\n{json.dumps(data, indent=1, default=str)}\n```"


def extract_json(text: str) -> str:
    """The JSON object in a text: from the first { to the last }, inside the fenced block if
    there is one (to its last fence: JSON strings may hold fences of their own)."""
    opening = FENCE_OPEN.search(text)
    if opening:
        text = text[opening.end() :]
        text = text[: text.rfind("```")] if "```" in text else text
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text.strip()


def describe(error: ValidationError) -> str:
    """The first few validation errors in one line."""
    parts = []
    for e in error.errors()[:3]:
        where = ".".join(str(p) for p in e["loc"]) or "(top level)"
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts)


@dataclass(frozen=True)
class Answer(Generic[T]):
    """A validated answer, or None and the reason to fall back."""

    value: T | None
    reason: str = ""
    content: str = ""
    """The raw reply text of the last attempt."""


def parse(content: str, schema: type[T], check: Callable[[T], str] | None) -> T | str:
    """The validated value, or a one-line problem."""
    try:
        value = schema.model_validate_json(extract_json(content))
    except ValidationError as exc:
        if any(e["type"] == "json_invalid" for e in exc.errors()):
            return "the reply is not a JSON object"
        return describe(exc)
    problem = check(value) if check else ""
    return problem or value


def ask_json(
    account: SearchAccount,
    role: str,
    messages: list[dict[str, Any]],
    schema: type[T],
    check: Callable[[T], str] | None = None,
) -> Answer[T]:
    """Ask `role`'s question; an invalid answer is retried once with the problem named."""
    messages = list(messages)
    problem = ""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            content, rowid = account.chat(role, messages, attempt)
        except SearchUnavailable as exc:
            return Answer(None, str(exc))
        outcome = parse(content, schema, check)
        if not isinstance(outcome, str):
            account.note(rowid, "used")
            return Answer(outcome, "", content)
        problem = outcome
        last = attempt == ATTEMPTS
        account.note(rowid, f"invalid: {problem}" + ("; falling back" if last else "; retried"))
        messages += [
            {"role": "assistant", "content": content},
            {
                "role": "user",
                "content": f"That answer was invalid: {problem}. Answer again with only the "
                "JSON object, following the schema in the instructions.",
            },
        ]
    return Answer(None, f"invalid answer after one retry: {problem}"[:300])
