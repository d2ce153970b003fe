"""How a search spends its budget: the method itself and the baselines, behind one protocol.

Every strategy proposes the epoch's new candidates from the selected parents; the epoch loop
evaluates them on the coreset within `evaluation.max_rollouts`, scores them and selects.
The steps never name a strategy: they read its properties (`Strategy`): how it scores
(`judge_only`), how it selects (`single_objective`, `shrunk`) and whether its offline
improver writes changes (`writes_changes`).
`evolution.strategy` names one entry of `STRATEGIES` (dotted paths, imported on use).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from harnesspro.core.records import Candidate
    from harnesspro.run.context import RunContext


class Strategy(Protocol):
    """Proposes new candidates (committed, recorded in the ledger) for one epoch, and says how
    the steps score and select them."""

    @property
    def judge_only(self) -> bool:
        """Score rollouts by the trajectory judgement alone, not the frozen tests (an
        ablation of the test synthesizer)."""
        ...

    @property
    def single_objective(self) -> bool:
        """Select on pass rate alone: every operating point is the best pass rate."""
        ...

    @property
    def writes_changes(self) -> bool:
        """With improver 'catalog', the offline improver also writes changes of its own (so
        a harness that declares no knobs still has something to try)."""
        ...

    @property
    def shrunk(self) -> bool:
        """Choose operating points on the surrogate's posterior means, not raw means."""
        ...

    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]: ...


class Plain:
    """The defaults of the properties: frozen tests, both objectives, raw means."""

    judge_only = False
    single_objective = False
    shrunk = False
    writes_changes = False


STRATEGIES: dict[str, str] = {
    "harnesspro": "harnesspro.evolution.strategies.loop:Loop",
    "harnesspro-no-analyzer": "harnesspro.evolution.strategies.loop:NoAnalyzer",
    "harnesspro-flat-prior": "harnesspro.evolution.strategies.loop:FlatPrior",
    "harnesspro-no-screen": "harnesspro.evolution.strategies.loop:NoScreen",
    "harnesspro-raw": "harnesspro.evolution.strategies.loop:RawSelection",
    "harnesspro-catalog": "harnesspro.evolution.strategies.expected_gain:ExpectedGain",
    "harnesspro-v1": "harnesspro.evolution.strategies.method:Method",
    "random": "harnesspro.evolution.strategies.random_edits:RandomEdits",
    "nsga2": "harnesspro.evolution.strategies.nsga2:NSGA2Search",
    "rho": "harnesspro.evolution.strategies.rho:SingleObjective",
    "balance": "harnesspro.evolution.strategies.balance:Balance",
    "no-planner": "harnesspro.evolution.strategies.no_planner:NoPlanner",
    "no-synth": "harnesspro.evolution.strategies.method:JudgeOnly",
}


def make_strategy(name: str) -> Strategy:
    """The strategy registered under `name`, or any `module:Class` dotted path."""
    module, _, attr = STRATEGIES.get(name, name).partition(":")
    strategy: Strategy = getattr(importlib.import_module(module), attr)()
    return strategy
