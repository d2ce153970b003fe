"""Families of phrasings the scripted policy recognises by meaning, not by one literal phrase.

Prompt traits are read off the harness's own prompts (the task's instruction is taken out
first, so a task about checksums does not read as "verify your work"); signals are read off
what tool results and harness turns actually contain. An improver that writes new prompt
text in its own words is recognised as long as it says the same thing. The families are word
lists read by meaning.py (synonyms, either word order, negation: "no need to verify" is not a
request to verify), written independently of the offline improver's wordings
(roles/ideas.py): no phrase of theirs is in the lists (tests/test_phrases.py checks it).
"""

from __future__ import annotations

import re
from functools import lru_cache

from harnesspro.execution.fakes.meaning import Family

# The families, in the policy's own words (meaning.py says how the lists combine).
# Asking the model to check its own work before it finishes.
VERIFY = Family(
    "verify",
    cues=("sanity check", "proofread", "self-review", "self review"),
    verbs=(
        "verify", "verified", "verifying", "verification", "check", "checked", "checking",
        "recheck", "confirm", "confirmed", "confirming", "validate", "validated",
        "validating", "validation", "test", "tested", "testing", "ensure", "make sure",
        "review", "reviewed", "re-examine", "re-read", "reread", "compare", "look over",
        "inspect your", "go over",
    ),
    objects=(
        "work", "output", "outputs", "result", "results", "answer", "answers", "change",
        "changes", "edit", "edits", "fix", "fixes", "file", "files", "content", "contents",
        "solution", "deliverable", "deliverables", "matches", "match", "correct", "correctly",
        "as requested", "what you wrote", "what you produced", "what you made", "works",
    ),
)  # fmt: skip
# Asking it not to look around more than the task needs.
DIRECT = Family(
    "direct",
    cues=(
        "go straight to", "straight to the point", "get right to", "read only what",
        "only read what", "only inspect what", "only look at what", "only open what",
        "as few commands as", "as few tool calls as", "fewest commands", "fewest tool calls",
        "act directly", "no detours",
    ),
    limited=(
        "explore", "exploration", "exploring", "look around", "looking around", "browse",
        "browsing", "survey", "surveying", "poke around", "wander", "wandering",
        "the number of commands", "the number of tool calls",
    ),
)  # fmt: skip
# Asking for short replies.
CONCISE = Family(
    "concise",
    cues=(
        "concise", "concisely", "terse", "tersely", "succinct", "succinctly", "briefly",
        "be brief", "a sentence or two", "as few words as", "no lengthy", "no long",
        "laconic", "to the point",
    ),
    verbs=("short", "shorter", "brief", "minimal", "few", "little", "compact", "sparse"),
    objects=(
        "reply", "replies", "answer", "answers", "response", "responses", "message", "messages",
        "reasoning", "commentary", "explanation", "explanations", "prose", "words", "sentence",
        "sentences", "note", "notes", "narration", "chatter", "text",
    ),
    reach=1,
)  # fmt: skip
# Asking it to read large files in part (head/tail/wc/grep) rather than print them whole.
SKIM = Family(
    "skim",
    cues=("skim", "skimming", "peek at", "first few lines", "only the first lines", "excerpt"),
    verbs=("head", "tail", "wc", "grep", "sed -n", "less"),
    objects=(
        "large", "big", "long", "huge", "lengthy", "sizeable", "whole", "entire", "bulky",
        "log", "logs",
    ),
    limited=(
        "cat", "print a whole", "print the whole", "print whole", "print an entire",
        "print the entire", "dump", "dumping", "printing", "output the whole",
        "display the whole", "read whole", "read the whole", "read the entire",
    ),
)  # fmt: skip
# In tool results: asking to stop looking around and finish.
FINISH = Family(
    "finish",
    cues=(
        "wrap up", "wrap it up", "wrap things up", "finish up", "hurry", "running out of",
        "running low on", "almost out of", "nearly out of", "last few steps", "final steps",
        "budget is nearly", "close to the limit", "near the limit", "time is almost up",
    ),
    verbs=("finish", "finishing", "submit", "submitting", "conclude", "complete", "end"),
    objects=(
        "now", "focus", "remaining", "left", "soon", "best", "immediately", "promptly",
        "quickly", "asap", "at once", "budget", "limit", "enough",
    ),
    limited=(
        "redundant", "rechecks", "exploring", "exploration", "looking around",
        "extra checks", "further checks", "more checks", "repeated checks",
    ),
    patterns=(r"\b\d+\s+(?:steps?|tool\s+calls?|calls?|turns?)\s+(?:left|remaining)\b",),
)  # fmt: skip
# In tool results: a hint that the command failed and should be fixed and run again.
RETRY_HINT = Family(
    "retry_hint",
    verbs=("fix", "correct", "retry", "repair", "rerun", "re-run", "redo", "amend", "try again"),
    objects=(
        "failed", "fails", "failing", "failure", "error", "errored", "errors", "broke",
        "broken", "unsuccessful", "crashed", "non-zero", "nonzero",
    ),
    negated_objects=("succeed", "succeeded", "work", "worked"),
    spans_clauses=True,
)  # fmt: skip
PROMPT_FAMILIES = {f.name: f for f in (VERIFY, DIRECT, CONCISE, SKIM)}


# In tool results: the call was not run because a budget is spent.
BLOCKED = re.compile(r"\bblocked\b|\bbudget is (spent|exhausted)\b|\bno more tool calls\b", re.I)
# In harness turns: a refused submission.
REFUSED = re.compile(
    r"^\[guard\]|\bsubmission (was )?refused\b|\bnot (yet )?accepted\b"
    r"|\bbefore (this|it) is accepted\b",
    re.I | re.M,
)
# In tool results: a request to resend an unparseable reply.
REPAIR = re.compile(
    r"^\[repair\]|could not be parsed|\bresend\b|\bnot valid json\b|\binvalid json\b", re.I
)
# In tool results: part of the output was folded or cut away.
FOLDED = re.compile(
    r"\blines? \(\d+ characters\) omitted|\[\.\.\..{0,40}(omitted|cut|truncated)"
    r"|\[repeated \d+ times\]|\bmore characters cut\b|\boutput truncated\b",
    re.I,
)

NOTICE_EDGE = 400  # harnesses put notices at the start or the end of a tool result


@lru_cache(maxsize=8192)
def result_signals(text: str) -> tuple[bool, bool, bool]:
    """(a finishing notice, folded output, a fix-and-retry hint) in one tool result. Notices
    and hints are looked for at the edges, where harnesses put them, so a file that happens
    to say "wrap up" is not one.
    Cached: every earlier result is seen again on each later call of a rollout."""
    edges = text if len(text) <= 2 * NOTICE_EDGE else text[:NOTICE_EDGE] + text[-NOTICE_EDGE:]
    low = text.lower()  # a cheap filter before the regular expression on long outputs
    maybe_folded = any(word in low for word in ("omitted", "cut", "repeated", "truncated"))
    folded = maybe_folded and bool(FOLDED.search(text))
    return FINISH.search(edges), folded, RETRY_HINT.search(edges)


@lru_cache(maxsize=8192)
def turn_signals(head: str) -> tuple[bool, bool]:
    """(a repair request, a refused submission) at the head of a harness turn; cached."""
    return bool(REPAIR.search(head)), bool(REFUSED.search(head))


@lru_cache(maxsize=1024)
def prompt_traits(prompts: str, instruction: str = "") -> frozenset[str]:
    """The families (verify, direct, concise, skim) the harness's prompts express; the task's
    own instruction is left out."""
    text = prompts.replace(instruction, " ") if instruction else prompts
    return frozenset(name for name, family in PROMPT_FAMILIES.items() if family.search(text))
