"""The cost axis of the Pareto front: the most honest quantity every candidate has.

Dollars per task when every candidate's cost is known. Else tokens per task, when every
candidate's token counts are known (an unpriced model). Else model calls per rollout: a
provider that reports no usage (llama-cpp-python's server streams none) leaves both unknown,
and the number of calls is the one cost figure the gateway always counts exactly. No estimate
and no made-up price stands in; the axis title always names the quantity.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from harnesspro.core.records import Score

Axis = Literal["dollars", "tokens", "calls"]
TITLES: dict[Axis, str] = {
    "dollars": "cost per task ($, mean over rollouts)",
    "tokens": "tokens per task (cost unknown: unpriced model)",
    "calls": "model calls per task (cost and tokens unknown: no usage reported)",
}
UNITS: dict[Axis, str] = {"dollars": "$/task", "tokens": "tokens/task", "calls": "calls/task"}


def axis_of(scores: Mapping[str, Score]) -> Axis:
    """The one axis every candidate of `scores` is placed on."""
    if all(math.isfinite(s.cost_per_task) for s in scores.values()):
        return "dollars"
    if all(math.isfinite(s.tokens_per_task) for s in scores.values()):
        return "tokens"
    return "calls"


def value_on(score: Score, axis: Axis) -> float:
    """A candidate's position on `axis`."""
    if axis == "dollars":
        return score.cost_per_task
    return score.tokens_per_task if axis == "tokens" else score.calls_per_task
