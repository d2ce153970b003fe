"""Search consensus: a frozen test refined from the rollouts the search already scored.

The seed's G rollouts often split (at G = 2 any disagreement abstains), so the frozen test may
say nothing about an output's value. As the search goes on, every candidate's rollouts of the
task vote again on the aspects the frozen test leaves open, in the manner of CodeT's dual
agreement: the value that at least `MIN_SUPPORT` voters and more than `MIN_SHARE` of those who
answered give becomes a check of kind `search`, with its support; without such a majority the
aspect abstains. A missing or empty output is no answer (the commonest wrong answer is an output
never written or left empty, and many rollouts agree on it). The voters are the rollouts the
trusted judgement passes (testsynth/judge.py) when there are at least `MIN_SUPPORT` of them,
else all of them. The frozen test's own checks are never changed or removed, but for two: a seed
check one rollout gave (support 1, a lone clean rollout) gives way to a clear consensus on its
aspect, and the seed's votes of a test that could not score are dropped (they describe
rollouts none of which passed); a vote that an output the instruction asks for is missing
never becomes a check.

A refinement is a function of the frozen test and the voters only (recomputed from the frozen
test every time, never from an earlier refinement), so a resumed run refines as an uninterrupted
one did. Voters are search rollouts (coreset and validation), never held-out ones, and nothing
here reads an official test or a solution.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from harnesspro.improvers.testsynth.check import SEARCH, SEED, Check
from harnesspro.improvers.testsynth.facts import digest
from harnesspro.improvers.testsynth.offline import SynthTest, combine

MIN_SUPPORT = 4
MIN_SHARE = 0.5
EMPTY = {("kind", "absent"), ("exists", "False"), ("nonempty", "False"), ("lines", "0")}
EMPTY_TEXT = digest("")
"""The digest of empty content or empty standard output."""


@dataclass(frozen=True)
class Voter:
    """One scored search rollout of the task: the facts of its final working directory (those
    the frozen test's reading names) and whether the trusted judgement passes it."""

    facts: Mapping[str, str]
    judged: bool


def pool(voters: Sequence[Voter]) -> list[Mapping[str, str]]:
    """The facts that vote: the judged-clean voters' when there are enough, else everyone's."""
    clean = [v.facts for v in voters if v.judged]
    return clean if len(clean) >= MIN_SUPPORT else [v.facts for v in voters]


def no_answer(aspect: str, value: str | None) -> bool:
    """Whether a voter gave no answer on this aspect: the fact is missing, or says the output
    or the command's output is missing or empty. The commonest wrong answer is no answer, so
    such a vote never becomes a check and is left out of the whole."""
    kind = aspect.split(":", 1)[0]
    return value is None or (kind, value) in EMPTY or value in (EMPTY_TEXT, "")


def agreed(facts: Sequence[Mapping[str, str]], skip: set[str]) -> list[Check]:
    """A `search` check for each aspect outside `skip` that a clear majority of the voters
    who answered on it agree on."""
    checks = []
    for aspect in sorted({a for f in facts for a in f} - skip):
        given = (f.get(aspect) for f in facts)
        answers = [v for v in given if v is not None and not no_answer(aspect, v)]
        if not answers:
            continue
        value, support = Counter(answers).most_common(1)[0]
        if support >= MIN_SUPPORT and support > MIN_SHARE * len(answers):
            checks.append(Check(aspect, value, SEARCH, support, len(answers)))
    return checks


def refine(test: SynthTest, voters: Sequence[Voter]) -> SynthTest:
    """The frozen test with search-consensus checks on the aspects it leaves open. A frozen
    test that could not score keeps only the instruction's checks: its seed votes describe
    rollouts none of which passed it (a program that was never written, say)."""
    kept = test.checks if not test.unscorable else tuple(c for c in test.checks if c.kind != SEED)
    strong = [c for c in kept if not weak(c)]
    found = agreed(pool(voters), {c.aspect for c in strong})
    if not found:
        return test
    overruled = {c.aspect for c in found}
    held = [*strong, *(c for c in kept if weak(c) and c.aspect not in overruled)]
    return replace(test, checks=combine(held, found, test.reading), unscorable="")


def weak(check: Check) -> bool:
    """A seed check one rollout gave: a clear search consensus on its aspect replaces it (a
    check frozen before supports were recorded, support 0, is not weak)."""
    return check.kind == SEED and check.support == 1


def candidates(test: SynthTest, voters: Sequence[Voter]) -> list[SynthTest]:
    """The refinements to try, best first: with search consensus, then, for a frozen test that
    could not score, its instruction's checks alone (a task the seed never passed is scored on
    what the instruction states until the search's rollouts agree on more)."""
    out = [refine(test, voters)]
    stated = tuple(c for c in test.checks if c.kind != SEED)
    if test.unscorable and stated:
        out.append(replace(test, checks=stated, unscorable=""))
    return [t for t in out if t != test]
