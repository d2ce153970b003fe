"""Structured improver calls: a JSON answer validated with pydantic, one retry with the
validation error, then a reason to fall back on. Never raises for a bad answer.

Replies are read as real models write them (`tolerant.json_values`: reasoning blocks, fences,
prose, trailing commas, bad escapes, cut-off output): the last JSON value that validates is the
answer. A role's `check` may screen the answer item by item (returning the kept part) or name
a problem that sends it back once. With a response format on (the config's, or the one a probe
found: `SearchAccount.structured`) the request asks for the reply schema in it; a role whose
schema the upstream refuses asks again without one. A
`fit.Prompt` is trimmed to the model's window before it is sent; an HTTP 400 that says the
prompt is too long is answered by trimming once more, not by falling back."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from harnesspro.improvers.account import SearchAccount, SearchUnavailable
from harnesspro.improvers.fit import Fitted, Prompt, PromptTooLarge, prompt_limit, render
from harnesspro.improvers.fit import retrimmed_limit as retrimmed
from harnesspro.improvers.formats import response_format
from harnesspro.improvers.tolerant import json_values

__all__ = ["Answer", "ask_json", "describe", "extract_json", "load_prompt", "parse", "render"]
T = TypeVar("T", bound=BaseModel)
Check = Callable[[T], "T | str"]
"""A role's screen of a validated answer: '' (use it), the kept part, or a problem."""
ATTEMPTS = 2  # the first answer and one retry with the validation error
FENCE_OPEN = re.compile(r"```(?:json)?[ \t]*\n")


def load_prompt(name: str) -> str:
    """A versioned prompt file of harnesspro/improvers/prompts/, e.g. `planner.v1`."""
    return (resources.files("harnesspro.improvers") / "prompts" / f"{name}.md").read_text()


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
    dropped: tuple[str, ...] = ()
    """Items of the reply left out, each with its reason."""


def unwrapped(values: list[Any]) -> list[Any]:
    """The values, each object followed by the objects it wraps ({"response": {...}})."""
    out = []
    for value in values:
        out.append(value)
        if isinstance(value, dict):
            out += [inner for inner in value.values() if isinstance(inner, dict)]
    return out


def parse(
    content: str,
    schema: type[T],
    check: Check[T] | None = None,
    salvage: Callable[[str], T | None] | None = None,
) -> T | str:
    """The last JSON value of the reply that validates (and passes `check`), else what
    `salvage` makes of the text, else a one-line problem (the last value's)."""
    values = json_values(content)
    problem = "the reply is not a JSON object" if not values else ""
    for value in reversed(unwrapped(values)):
        try:
            answer = schema.model_validate(value)
        except ValidationError as exc:
            problem = problem or describe(exc)
            continue
        outcome = check(answer) if check else ""
        if isinstance(outcome, str) and outcome:
            problem = problem or outcome
            continue
        return answer if isinstance(outcome, str) else outcome
    rescued = salvage(content) if salvage else None
    return rescued if rescued is not None else problem


def reply_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """A reply schema as JSON schema, its screening fields left out."""
    spec = schema.model_json_schema()
    spec.get("properties", {}).pop("dropped", None)
    return spec


def _fit(account: SearchAccount, role: str, prompt: Prompt, limit: int | None) -> Fitted:
    fitted = prompt.fit(limit)
    if fitted.cuts:
        account.log(role, {"fitted": fitted.tokens, "limit": limit, "cut": list(fitted.cuts)})
    return fitted


def _send(
    account: SearchAccount, role: str, prompt: Prompt, attempt: int, extra: dict[str, Any]
) -> tuple[str, int, list[dict[str, Any]]]:
    """One call with the prompt fitted to the window; a 400 for length is answered by
    trimming once more. Raises SearchUnavailable (a prompt that cannot fit included)."""
    improver = account.improver
    limit = prompt_limit(improver.context_tokens, {**improver.request, **extra})
    try:
        fitted = _fit(account, role, prompt, limit)
        try:
            content, rowid = account.chat(role, fitted.messages, attempt, extra)
        except SearchUnavailable as exc:
            smaller = retrimmed(fitted.tokens, str(exc)) if exc.status == 400 else None
            if smaller is None:
                raise
            fitted = _fit(account, role, prompt, smaller)
            content, rowid = account.chat(role, fitted.messages, attempt, extra)
    except PromptTooLarge as exc:
        raise SearchUnavailable(f"the {role} prompt cannot fit the window: {exc}") from None
    return content, rowid, fitted.messages


def _send_structured(
    account: SearchAccount, role: str, prompt: Prompt, attempt: int, schema: type[BaseModel]
) -> tuple[str, int]:
    """One call asking for the reply schema as a response format when the upstream takes one.
    An error answer to a request that carried a schema (400 or 5xx: llama.cpp's grammar
    compiler refuses large schemas) is sent once more without it, and the role stops asking."""
    kind = account.structured(role)
    if not kind:
        return _send(account, role, prompt, attempt, {})[:2]
    extra = {"response_format": response_format(kind, role, reply_schema(schema))}
    try:
        return _send(account, role, prompt, attempt, extra)[:2]
    except SearchUnavailable as exc:
        if exc.status is None or not (exc.status == 400 or exc.status >= 500):
            raise
        account.refuse_format(role, str(exc))
        return _send(account, role, prompt, attempt, {})[:2]


def ask_json(
    account: SearchAccount,
    role: str,
    prompt: Prompt,
    schema: type[T],
    check: Check[T] | None = None,
    salvage: Callable[[str], T | None] | None = None,
) -> Answer[T]:
    """Ask `role`'s question; an invalid answer is retried once with the problem named."""
    problem = ""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            content, rowid = _send_structured(account, role, prompt, attempt, schema)
        except SearchUnavailable as exc:
            return Answer(None, str(exc))
        outcome = parse(content, schema, check, salvage)
        if not isinstance(outcome, str):
            dropped = tuple(getattr(outcome, "dropped", ()))
            account.note(rowid, "used" + (f"; dropped {'; '.join(dropped)}" if dropped else ""))
            return Answer(outcome, "", content, dropped)
        problem = outcome
        last = attempt == ATTEMPTS
        account.note(rowid, f"invalid: {problem}" + ("; falling back" if last else "; retried"))
        retry = {
            "role": "user",
            "content": f"That answer was invalid: {problem}. Answer again with only the "
            "JSON object, following the schema in the instructions.",
        }
        follow_up = (*prompt.follow_up, {"role": "assistant", "content": content}, retry)
        prompt = replace(prompt, follow_up=follow_up)
    return Answer(None, f"invalid answer after one retry: {problem}"[:300])
