"""Families of phrasings the scripted policy recognises by meaning, not by one literal phrase.

Prompt traits are read off the harness's own prompts (the task's instruction is taken out
first, so a task about checksums does not read as "verify your work"); signals are read off
what tool results and harness turns actually contain. An improver that writes new prompt
text in its own words is recognised as long as it says the same thing.
"""

from __future__ import annotations

import re
from functools import lru_cache

_I = re.I | re.S

# Asking the model to check its own work before it finishes.
VERIFY = re.compile(
    r"\bverify\b|\bverif(y|ies|ication)\b.{0,40}\b(work|output|result|change)"
    r"|double[- ]?check|\bconfirm\b.{0,30}\b(output|result|work|change|file)s?\b"
    r"|\btest (your|the) (change|work|code|fix|script|output)s?\b"
    r"|\bmake sure\b.{0,80}\b(match|matches|correct|pass|passes|works?|as (asked|requested))\b"
    r"|\bcheck (your|the) (work|output|result|answer)s?\b|\bvalidate (your|the) (output|result)"
    r"|\bre-?read (your|the) (output|result)s?\b.{0,40}\b(instruction|task)"
    r"|\bconfirm\b.{0,40}\b(match|matches|correct|right)\b"
    r"|\b(check|compare)\b.{0,50}\bagainst the (instructions?|request|task|spec)",
    _I,
)
# Asking it not to look around more than the task needs.
DIRECT = re.compile(
    r"\bavoid (unnecessary|needless|excessive|extra) (exploration|exploring|looking around)"
    r"|\b(don't|do not|never) (explore|look around|browse)\b"
    r"|\bminimi[sz]e (exploration|exploring|the number of (commands|tool calls))"
    r"|\bread only what (the task|you) needs?\b|\bonly (look at|read|open|inspect) what\b"
    r"|\bgo straight to (the )?(work|task|change|fix)\b|\bskip (the )?(exploration|survey)"
    r"|\bno (unnecessary|needless) (commands|exploration|tool calls)",
    _I,
)
# Asking for short replies.
CONCISE = re.compile(
    r"\bconcise(ly)?\b|\bbe brief\b|\bbriefly\b|\bterse(ly)?\b|\bsuccinct(ly)?\b"
    r"|\bkeep (your )?(replies|answers|responses|messages|reasoning) (short|brief|minimal)"
    r"|\b(short|brief) (replies|answers|responses)\b|\ba sentence or two\b"
    r"|\bone or two sentences\b|\bas few words as\b|\bno (long|lengthy) (explanations?|prose)"
    r"|\b(one|two|a) (or two )?short sentences?\b|\bsay little\b|\ba brief note\b"
    r"|\bkeep (every|each|your) (message|reply|answer|response)s? (short|brief|to)\b"
    r"|\b(no|less|little|minimal) (commentary|narration|chatter)\b",
    _I,
)
# Asking it to read large files in part (head/tail/wc/grep) rather than print them whole.
SKIM = re.compile(
    r"instead of `?cat`?|\brather than `?cat`?"
    r"|\b(never|don't|do not|avoid) (print|dump|cat|output)(ting|ing)? (a |an |the )?"
    r"(whole|entire|full|large|big|long)"
    r"|\b(head|tail|wc|grep)\b[^.\n]{0,60}\b(large|big|long|whole|entire) (files?|inputs?)"
    r"|\b(large|big|long) files?\b[^.\n]{0,60}\b(head|tail|wc|grep)\b"
    r"|\bprint(ing)? (them|it|files?) whole\b|\bpiece by piece\b"
    r"|\bskim\b|\bpeek at\b|\bonly the first (few )?lines\b",
    _I,
)
# In tool results: asking to stop looking around and finish.
FINISH = re.compile(
    r"\bredundant\b|\bfocus on finishing\b|\bsubmit (your best|now|your answer)"
    r"|\bwrap (it )?up\b|\bstop (exploring|checking)\b|\bfinish (up|now)\b"
    r"|\brunning (out|low) (of|on) (steps|budget|tool calls)|\b\d+ steps? left\b",
    _I,
)
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

# In tool results: a hint that the command failed and should be fixed and run again.
RETRY_HINT = re.compile(
    r"\b(failed|did not succeed|didn't work|returned an error)\b.{0,80}"
    r"\b(fix|correct|retry|try again|run it again)\b"
    r"|\b(fix|correct) (it|the command|that)\b.{0,40}\b(again|retry)\b",
    re.I | re.S,
)

PROMPT_FAMILIES = {"verify": VERIFY, "direct": DIRECT, "concise": CONCISE, "skim": SKIM}
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
    return bool(FINISH.search(edges)), folded, bool(RETRY_HINT.search(edges))


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
