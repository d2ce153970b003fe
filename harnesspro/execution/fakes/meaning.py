"""What a piece of text asks for, read by meaning: families of words, not literal phrases.

A family is written as plain word lists (inflections spelled out), in the policy's own
vocabulary; none of its phrases of two or more words is taken from the offline improver's
wordings (harnesspro/improvers/roles/ideas.py; a test checks the literal strings are
disjoint), so an improver is recognised only when it says the same thing in words the family
knows.

Text is cut into clauses at . ; : ! ? and line ends. A clause expresses a family when
- one of its `cues` occurs, not negated;
- one of its `verbs` occurs, not negated, with one of its `objects` anywhere in the clause
  (either order: "verify your output", "the outputs must be checked"), or within `reach`
  words of it ("short replies", "replies short");
- one of its `limited` terms occurs limited: a negator or limiter (`LIMITERS`) in the eight
  words before it ("avoid unnecessary exploration", "never print a whole file").
Negated: a negator (`NEGATORS`) before the match in its part of the clause (a comma or a
linking word such as "until" or "but" starts a new part), or a dismissal
(`DISMISSALS`: "... is not needed") in the clause after it. So "no need to verify" and
"verification is optional" are not requests to verify, and "don't be brief" is not a request
for short replies. `spans_clauses` families (hints in tool results) read the text whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

NEGATORS = (
    "no", "not", "never", "don't", "dont", "do not", "needn't", "without", "skip", "skipping",
    "nor", "cannot", "can't", "shouldn't", "mustn't", "stop",
)  # fmt: skip
LIMITERS = (
    *NEGATORS, "avoid", "avoiding", "minimise", "minimize", "limit", "reduce", "fewer",
    "less", "cut down on", "instead of",
)  # fmt: skip
DISMISSALS = (
    "not needed", "not necessary", "not required", "unnecessary", "optional", "isn't needed",
    "not your job", "needless",
)  # fmt: skip
CLAUSE = re.compile(r"[.;:!?\n]+")


def _alternation(entries: Sequence[str]) -> re.Pattern[str]:
    """Whole-word alternatives; a space matches any run of spaces, a hyphen also none."""
    escaped = (re.escape(e).replace(r"\ ", r"\s+").replace(r"\-", r"[-\s]?") for e in entries)
    parts = sorted(escaped, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", re.I)


NEGATOR_RE = _alternation(NEGATORS)
LIMITER_RE = _alternation(LIMITERS)
DISMISSAL_RE = _alternation(DISMISSALS)


RESET = re.compile(
    r"[,.;:!?\n]|\b(?:but|until|then|instead|and|so|unless|before|after|once|when|if)\b", re.I
)


def _negated(clause: str, start: int, end: int) -> bool:
    """A negator earlier in the clause's current part (parts end at a comma or a linking word:
    "do not stop until you have verified it" asks to verify), or a dismissal after."""
    before = clause[:start]
    cut = max((m.end() for m in RESET.finditer(before)), default=0)
    return bool(NEGATOR_RE.search(before[cut:])) or bool(
        DISMISSAL_RE.search(clause[end : end + 60])
    )


def _limited(clause: str, start: int) -> bool:
    return bool(LIMITER_RE.search(" ".join(clause[:start].split()[-8:])))


NEVER = re.compile(r"(?!x)x")


@dataclass(frozen=True)
class Family:
    """One meaning, as word lists (see the module docstring for how they combine)."""

    name: str
    cues: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    objects: tuple[str, ...] = ()
    negated_objects: tuple[str, ...] = ()  # objects only when negated ("did not succeed")
    limited: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()  # structural cues with numbers ("3 steps left")
    spans_clauses: bool = False
    reach: int | None = None  # most words between a verb and its object (None: the clause)
    _compiled: dict[str, re.Pattern[str]] = field(default_factory=dict, compare=False, repr=False)

    def literals(self) -> tuple[str, ...]:
        """Every literal string of the family's lists."""
        return (*self.cues, *self.verbs, *self.objects, *self.negated_objects, *self.limited)

    def _re(self, part: str) -> re.Pattern[str]:
        if part not in self._compiled:
            entries = getattr(self, part)
            self._compiled[part] = _alternation(entries) if entries else NEVER
        return self._compiled[part]

    def _object(self, clause: str, verb: re.Match[str]) -> bool:
        if self.reach is not None:  # only the words around the verb
            words = self.reach + 1
            before = " ".join(clause[: verb.start()].split()[-words:])
            clause = f"{before} {' '.join(clause[verb.end() :].split()[:words])}"
        if self._re("objects").search(clause):
            return True
        found = self._re("negated_objects").finditer(clause)
        return any(_negated(clause, m.start(), m.end()) for m in found)

    def _clause(self, clause: str) -> bool:
        free = [m for m in self._re("cues").finditer(clause)]
        if any(not _negated(clause, m.start(), m.end()) for m in free):
            return True
        if any(re.search(p, clause, re.I) for p in self.patterns):
            return True
        for verb in self._re("verbs").finditer(clause):
            if not _negated(clause, verb.start(), verb.end()) and self._object(clause, verb):
                return True
        return any(_limited(clause, m.start()) for m in self._re("limited").finditer(clause))

    def search(self, text: str) -> bool:
        """Whether `text` expresses this family in some clause (or at all, `spans_clauses`)."""
        if self.spans_clauses:
            return self._clause(text)
        return any(self._clause(c) for c in CLAUSE.split(text) if c.strip())
