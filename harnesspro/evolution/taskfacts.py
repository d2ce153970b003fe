"""No task facts in a harness: before a new candidate is accepted, the text its diff adds is
checked against the facts of the run's coreset and validation tasks, and a hit discards it.

A label-free search rewards a harness that knows the answers; this check keeps it honest. The
facts (read here, in the orchestration, never shown to an improver) are
- the tasks' ids (of 6 characters or more);
- the file names their instructions and working directories name (with an extension, at
  least 6 characters);
- distinctive phrases of their instructions: runs of `PHRASE_WORDS` words no other task of
  the suite's instructions holds;
- the expected values visible in the seed's outputs: tokens of the files a seed rollout wrote
  or changed that look like data, not prose or settings (`looks_like_data`).
A fact the parent harness already holds anywhere is no evidence against the child and is
left out. The discard reason names the kind of fact and the harness file, never the fact
itself or the task, so nothing of a validation task reaches an improver through it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harnesspro.improvers.testsynth.gate import untouched_workspace
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.sandbox import make_sandbox

PHRASE_WORDS = 6
MAX_FILE = 64_000
"""Bytes of one output file read for values (bigger ones are data dumps, not answers)."""
WORD = re.compile(r"[a-z0-9_]+")
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@/+-]*[A-Za-z0-9]|[0-9]")
NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")
NAME = re.compile(r"[A-Za-z0-9_.-]*[A-Za-z0-9_-]\.[A-Za-z0-9]{1,8}\b")
KINDS = {
    "ids": "a task's id",
    "names": "a task's file name",
    "phrases": "a distinctive phrase of a task's instruction",
    "values": "an expected value from the seed's outputs",
}


@dataclass(frozen=True)
class TaskFacts:
    """What a harness must not carry, by kind (see KINDS)."""

    ids: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()
    phrases: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()


def phrases(text: str) -> set[str]:
    """Every run of PHRASE_WORDS words of `text`, lower-cased, punctuation dropped."""
    words = WORD.findall(text.lower())
    return {" ".join(words[i : i + PHRASE_WORDS]) for i in range(len(words) - PHRASE_WORDS + 1)}


def looks_like_data(token: str) -> bool:
    """A value, not a word or a setting: a number of 3+ digits whose last digit is not 0 or 5
    and that is no power of two (harness settings are round: 2000, 1500, 120, 0.25, 4096 are
    not facts), a token mixing 2+ digits with other characters (a date, an invoice
    number), or a word with an `@` or `.` inside (an address, a file name)."""
    digits = sum(c.isdigit() for c in token)
    if NUMBER.fullmatch(token):
        power_of_two = token.isdigit() and int(token) & (int(token) - 1) == 0
        return digits >= 3 and token[-1] not in "05" and not power_of_two
    if digits:
        return digits >= 2 and len(token) >= 4
    return len(token) >= 6 and any(c in token[1:-1] for c in "@.")


def value_tokens(text: str) -> set[str]:
    """The tokens of `text` that look like data values."""
    return {token for token in TOKEN.findall(text) if looks_like_data(token)}


def file_names(text: str) -> set[str]:
    return {n for n in NAME.findall(text) if len(n) >= 6}


def _text(data: bytes) -> str:
    return data[:MAX_FILE].decode("utf-8", errors="replace")


def seed_values(ctx: RunContext, task_id: str) -> set[str]:
    """Value tokens of the files the seed's rollouts of a task wrote or changed."""
    rows = ctx.ledger.rollouts()
    keys = rows[(rows["candidate_id"] == SEED_ID) & (rows["task_id"] == task_id)]["key"]
    if keys.empty:
        return set()
    sandbox = make_sandbox(ctx.config.sandbox.backend)
    before = untouched_workspace(ctx.tasks[task_id], sandbox)
    found: set[str] = set()
    for key in keys:
        for name, data in ctx.run.workspace(str(key)).items():
            if "/.git/" in f"/{name}" or before.get(name) == data or len(data) > MAX_FILE:
                continue
            found |= value_tokens(_text(data))
    return found


def task_facts(ctx: RunContext) -> TaskFacts:
    """The facts of the run's coreset and validation tasks."""
    searched = [*ctx.splits.coreset, *ctx.splits.validation]
    ids = {t.lower() for t in searched if len(t) >= 6}
    names: set[str] = set()
    own: set[str] = set()
    for task_id in searched:
        names |= file_names(ctx.tasks[task_id].instruction)
        own |= phrases(ctx.tasks[task_id].instruction)
    others = [t for t in ctx.tasks.values() if t.id not in searched]
    shared = set().union(*(phrases(t.instruction) for t in others)) if others else set()
    values: set[str] = set()
    for task_id in searched:
        values |= seed_values(ctx, task_id)
    return TaskFacts(
        frozenset(ids),
        frozenset(n.lower() for n in names),
        frozenset(own - shared),
        frozenset(values),
    )


def added_text(parent: Mapping[str, bytes], child: Mapping[str, bytes]) -> dict[str, str]:
    """Per changed file, the lines the child has that the parent's version lacks."""
    added = {}
    for path, data in child.items():
        if parent.get(path) == data:
            continue
        old = set(_text(parent.get(path, b"")).splitlines())
        lines = [line for line in _text(data).splitlines() if line not in old]
        if lines:
            added[path] = "\n".join(lines)
    return added


def _holds_id(lower: str, task_id: str) -> bool:
    return re.search(rf"(?<![a-z0-9_]){re.escape(task_id)}(?![a-z0-9_])", lower) is not None


def _found(facts: TaskFacts, text: str) -> str:
    """The kind of the first fact `text` holds, or ''."""
    lower = text.lower()
    tokens = {t.lower() for t in TOKEN.findall(text)}
    checks: Iterable[tuple[str, set[str] | frozenset[str]]] = (
        ("ids", {i for i in facts.ids if _holds_id(lower, i)}),
        ("names", facts.names & {n.lower() for n in file_names(text)}),
        ("phrases", facts.phrases & phrases(text)),
        ("values", {v.lower() for v in facts.values} & tokens),
    )
    return next((kind for kind, hits in checks if hits), "")


def without(facts: TaskFacts, parent: Mapping[str, bytes]) -> TaskFacts:
    """The facts the parent harness does not already hold anywhere."""
    text = "\n".join(_text(d) for d in parent.values())
    lower = text.lower()
    tokens = {t.lower() for t in TOKEN.findall(text)}
    return TaskFacts(
        frozenset(i for i in facts.ids if not _holds_id(lower, i)),
        frozenset(n for n in facts.names if n not in lower),
        facts.phrases - phrases(text),
        frozenset(v for v in facts.values if v.lower() not in tokens),
    )


def leak(facts: TaskFacts, parent: Mapping[str, bytes], child: Mapping[str, bytes]) -> str:
    """The discard reason when the child's additions carry a task fact, else ''. It names the
    kind of fact and the harness file only."""
    fresh = without(facts, parent)
    for path, text in sorted(added_text(parent, child).items()):
        kind = _found(fresh, text)
        if kind:
            return (
                f"discarded: the change writes {KINDS[kind]} into {path}; a "
                "harness must carry no facts of the run's tasks"
            )
    return ""
