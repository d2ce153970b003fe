"""How a search spends its budget: the method itself and the baselines, behind one protocol.

Every strategy proposes the epoch's new candidates from the selected parents; the epoch loop
evaluates them on the coreset within `evaluation.max_rollouts` and scores them the same way
(frozen synthesized tests; `no-synth` is the ablation that does not), so budgets are equal.
`evolution.strategy` names one entry of `STRATEGIES` (dotted paths, imported on use).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from harnesspro.core.records import Candidate
    from harnesspro.run.context import RunContext


class Strategy(Protocol):
    """Proposes new candidates (committed, recorded in the ledger) for one epoch."""

    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]: ...


STRATEGIES: dict[str, str] = {
    "harnesspro": "harnesspro.evolution.strategies.expected_gain:ExpectedGain",
    "harnesspro-v1": "harnesspro.evolution.strategies.method:Method",
    "random": "harnesspro.evolution.strategies.random_edits:RandomEdits",
    "nsga2": "harnesspro.evolution.strategies.nsga2:NSGA2Search",
    "rho": "harnesspro.evolution.strategies.rho:SingleObjective",
    "balance": "harnesspro.evolution.strategies.balance:Balance",
    "no-planner": "harnesspro.evolution.strategies.no_planner:NoPlanner",
    "no-synth": "harnesspro.evolution.strategies.method:Method",
}
"""Strategies that select on pass rate alone (every mode picks the best pass rate)."""


def make_strategy(name: str) -> Strategy:
    """The strategy registered under `name`, or any `module:Class` dotted path."""
    module, _, attr = STRATEGIES.get(name, name).partition(":")
    strategy: Strategy = getattr(importlib.import_module(module), attr)()
    return strategy
