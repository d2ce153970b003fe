"""The method as built: analyse, plan under three directives per parent, edit
(harnesspro/improve.py). `no-synth` proposes the same way and differs only in scoring."""

from __future__ import annotations

from harnesspro.context import RunContext
from harnesspro.improve import improve
from harnesspro.records import Candidate


class Method:
    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        return improve(ctx, epoch, parents)
