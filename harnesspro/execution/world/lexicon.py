"""The intents a simulated model hears in an instruction, read with a small lexicon of ordinary
English (written for this world, not taken from any harness's prompts), and how emphatic a
sentence is.

An intent is heard in a sentence when one of its patterns matches; a few plain negations
("no need to", "don't bother") cancel it. Patterns are whole-word and case-blind.
"""

from __future__ import annotations

import re

INTENTS = ("check", "brief", "survey", "focus", "whole", "files", "stop")


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.I)


_OBJECT = r"(?:work|output|outputs|result|results|answer|answers|changes?|files?|solution|it)"
PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    # checking or testing one's own work
    "check": (
        _words(
            rf"(?:check|test|verify|confirm|validate|review|inspect|proofread)\w*\s+(?:\w+\s+){{0,2}}{_OBJECT}",
            r"double[- ]check\w*",
            r"make sure (?:that )?(?:it|the|your|everything)",
            r"sanity[- ]check\w*",
        ),
    ),
    # short replies
    "brief": (
        _words(
            r"brief(?:ly)?",
            r"concise(?:ly)?",
            r"terse(?:ly)?",
            r"succinct(?:ly)?",
            r"(?:few|fewer) words",
            r"(?:short|shorter) (?:replies|reply|answers?|messages?|explanations?)",
            r"(?:no|skip the|without) (?:explanations?|commentary|narration)",
        ),
    ),
    # looking around before acting
    "survey": (
        _words(
            r"(?:look at|explore|examine|study|familiari[sz]e yourself with) "
            r"(?:\w+ ){0,2}(?:files?|director(?:y|ies)|structure|layout|inputs?|repository)",
            r"get (?:an|a) (?:overview|sense)",
        ),
    ),
    # limiting exploration
    "focus": (
        _words(
            r"(?:don't|do not|avoid|never|stop) (?:\w+ ){0,1}(?:explor\w*|look(?:ing)? around|"
            r"wander\w*|brows\w*)",
            r"only (?:read|open|look at|inspect) what",
            r"(?:go|get) (?:straight|directly) to",
            r"act (?:right away|directly|immediately)",
            r"(?:little|minimal|no) exploration",
        ),
    ),
    # reading whole inputs rather than parts
    "whole": (
        _words(
            r"(?:read|open|view|print|see) (?:\w+ ){0,2}(?:whole|entire|full|complete) "
            r"(?:files?|inputs?|contents?|data)",
            r"every line of",
            r"(?:don't|do not|never) (?:skim|truncate|sample)",
        ),
    ),
    # writing files from the shell (heredocs, redirects)
    "files": (
        _words(
            r"here[- ]?doc\w*",
            r"here[- ]document",
            r"(?:write|create|save|put) (?:\w+ ){0,3}(?:files?|scripts?|programs?|code) "
            r"(?:\w+ ){0,4}(?:with|using|via|from|through) (?:\w+ ){0,2}(?:bash|shell|cat|"
            r"printf|echo|redirect\w*)",
        ),
        re.compile(r"cat\s*>\s*\S+\s*<<", re.I),
    ),
    # stopping when the work is done
    "stop": (
        _words(
            r"(?:when|once|as soon as) (?:you are|you're|it is|it's|the task is|everything is) "
            r"(?:done|finished|complete)",
            r"(?:stop|answer|reply) (?:as soon as|once|when)",
            r"(?:don't|do not) (?:keep|continue) (?:running|calling|issuing)",
        ),
    ),
}
NEGATION = _words(
    r"no need to",
    r"need not",
    r"needn't",
    r"(?:don't|do not) bother",
    r"not necessary to",
)
EMPHASIS = _words(
    r"must",
    r"always",
    r"never",
    r"important(?:ly)?",
    r"crucial",
    r"critical",
    r"essential",
    r"required",
    r"mandatory",
)
SENTENCE = re.compile(r"(?<=[.!?:;])\s+|\n\s*\n|\n(?=\s*[-*\d])")
CAPITALS = re.compile(r"\b[A-Z]{3,}\b")


def sentences(text: str) -> list[str]:
    """The prompt's sentences (blank lines and list items break too)."""
    return [s.strip() for s in SENTENCE.split(text) if s.strip()]


def intents(sentence: str) -> frozenset[str]:
    """The intents one sentence carries (none when it is negated)."""
    if NEGATION.search(sentence):
        return frozenset()
    return frozenset(
        k for k, patterns in PATTERNS.items() if any(p.search(sentence) for p in patterns)
    )


def emphasis_marks(sentence: str) -> int:
    """Emphasis words, words in capitals and exclamation marks in one sentence."""
    return len(EMPHASIS.findall(sentence)) + len(CAPITALS.findall(sentence)) + sentence.count("!")
