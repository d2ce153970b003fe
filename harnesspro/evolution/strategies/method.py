"""The method as built: analyse, plan under three directives per parent, edit
(harnesspro/evolution/improve.py). `no-synth` proposes the same way and differs only in scoring."""

from __future__ import annotations

from harnesspro.core.records import Candidate
from harnesspro.evolution.improve import improve
from harnesspro.evolution.strategies import Plain
from harnesspro.run.context import RunContext


class Method(Plain):
    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        return improve(ctx, epoch, parents)


class JudgeOnly(Method):
    """`no-synth`: proposes as the method does, scored by the trajectory judgement alone."""

    judge_only = True
