"""Checks the instruction states: properties of an output it asks for, each with its sentence.

For every path the instruction asks to write (`Reading.outputs`) the words around it, from the
start of its sentence to the next working-directory path or the end of its paragraph or list
item, are read for what they fix about that output: that it exists, that a structured output
parses, that its lines are sorted (ascending or descending), unique, exactly N, that it ends
with a newline, that it is UTF-8. Each becomes a check of kind `instruction` whose `source` is
that text, so a task the seed never passes still has checks a rollout can fail or pass. Only
the instruction is read: nothing here sees a rollout, an official test or a solution.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from harnesspro.improvers.testsynth.check import INSTRUCTION, Check
from harnesspro.improvers.testsynth.facts import BACKTICKED, LINE_KINDS, Reading
from harnesspro.improvers.testsynth.formats import STRUCTURED, kind_of

NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
NUMBER = r"(\d+|" + "|".join(NUMBERS) + r")"
SORTED = re.compile(
    r"\bsorted\b(?!\s+by\b(?!te))|\balphabetically\b"
    r"|\b(ascending|descending|alphabetical|lexicographic(al)?|byte) order\b",
    re.IGNORECASE,
)
BY_KEY = re.compile(r"\bby\s+(?!byte\b)", re.IGNORECASE)
"""Sorted by a field: whole lines need not be in order, so no order check."""
OF_LINES = re.compile(r"\b(lines|rows|one per line|listing|list)\b", re.IGNORECASE)
"""An order stated in a sentence about the output's lines (not, say, words within a line)."""
DESCENDING = re.compile(r"\bdescending\b|\breverse order\b", re.IGNORECASE)
UNIQUE = re.compile(
    r"\b(unique|distinct|deduplicated|no duplicates?|without duplicates"
    r"|each (\w+ )?(at most|only) once)\b",
    re.IGNORECASE,
)
NEWLINE = re.compile(
    r"\b(end(s|ing)? with a newline|trailing newline|newline-terminated|terminated by a newline)\b",
    re.IGNORECASE,
)
UTF8 = re.compile(r"\bUTF-?8\b", re.IGNORECASE)
EXACT_LINES = re.compile(rf"\bexactly {NUMBER} (lines|rows)\b|\b(a single) line\b", re.IGNORECASE)
BOUNDARY = re.compile(r"\n\s*\n|\n\s*[-*] |\n\s*\d+\. ")
BULLET = re.compile(r"^([-*]|\d+\.)\s+")
SENTENCE_END = re.compile(r"[.!?](\s|$)")


def regions(instruction: str, reading: Reading) -> Iterator[tuple[str, str]]:
    """(output path, the text that speaks of it) for each mention of an output path."""
    root = reading.workdir.rstrip("/") + "/"
    mentions = [
        (m.start(), m.end(), m.group(1).rstrip("/")[len(root) :])
        for m in BACKTICKED.finditer(instruction)
        if m.group(1).startswith(root) and " " not in m.group(1)
    ]
    for i, (start, end, rel) in enumerate(mentions):
        if rel not in reading.outputs:
            continue
        before = instruction[:start]
        stops = [0, *(m.end() for m in SENTENCE_END.finditer(before))]
        stops += [m.end() for m in BOUNDARY.finditer(before)]
        stops += [e for _, e, _ in mentions[:i]]
        head = max(stops)
        limit = mentions[i + 1][0] if i + 1 < len(mentions) else len(instruction)
        cut = BOUNDARY.search(instruction, end, limit)
        tail = cut.start() if cut else limit
        yield rel, BULLET.sub("", " ".join(instruction[head:tail].split()))


def _lines(text: str) -> str | None:
    match = EXACT_LINES.search(text)
    if match is None:
        return None
    word = (match.group(1) or "one").lower()
    return str(NUMBERS.get(word, 0) or int(word))


def properties(rel: str, text: str) -> Iterator[tuple[str, str]]:
    """(aspect, value) pairs the text fixes about the output `rel`."""
    yield f"exists:{rel}", "True"
    structured = any(rel.lower().endswith(suffix) for suffix in STRUCTURED)
    if structured:
        yield f"parses:{rel}", "True"
    if structured or "." in rel.rsplit("/", 1)[-1]:
        yield f"nonempty:{rel}", "True"  # a file asked for holds an answer
    if kind_of(rel, b"") not in LINE_KINDS:
        return  # a program or a structured document: its lines are not its rows
    for sentence in re.split(r"(?<=[.;!?])\s+", text):
        if SORTED.search(sentence) and OF_LINES.search(sentence) and not BY_KEY.search(sentence):
            down = DESCENDING.search(sentence)
            yield (f"descending:{rel}" if down else f"ascending:{rel}"), "True"
            break
    if UNIQUE.search(text):
        yield f"unique:{rel}", "True"
    if NEWLINE.search(text):
        yield f"newline:{rel}", "True"
    if UTF8.search(text):
        yield f"utf8:{rel}", "True"
    count = _lines(text)
    if count is not None:
        yield f"lines:{rel}", count


def stated_checks(instruction: str, reading: Reading) -> tuple[Check, ...]:
    """The instruction's checks, one per aspect (the first text that fixes it is its source)."""
    found: dict[str, Check] = {}
    for rel, text in regions(instruction, reading):
        for aspect, value in properties(rel, text):
            found.setdefault(aspect, Check(aspect, value, INSTRUCTION, source=text))
    for rel in reading.outputs:
        found.setdefault(f"exists:{rel}", Check(f"exists:{rel}", "True", INSTRUCTION))
    return tuple(sorted(found.values(), key=lambda c: c.aspect))
