"""Per-rollout caps enforced by the gateway before it forwards a call.

Overshoot bound: a call is refused once a cap is *reached*, so a rollout can exceed a token or
dollar cap by at most the usage of the one call that crossed it (call caps are exact). Run-level
caps are enforced by the driver between rollouts: at most the rollouts already in flight
(the cluster's slots, or `ray.max_in_flight`) can add to the total after the cap is reached.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field


class RolloutBudget(BaseModel):
    """Caps for one rollout (None = no cap)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    max_calls: int | None = Field(None, ge=1)
    """Model calls."""
    max_tokens: int | None = Field(None, ge=1)
    """Input + output tokens over all calls; a call whose answer reported no usage counts an
    estimate, four characters per token of its request and reply (`usage.estimated_tokens`)."""
    max_dollars: float | None = Field(None, gt=0)
    """Dollars over all calls (ignored when the model is unpriced)."""


@dataclass
class Spent:
    calls: int = 0
    tokens: int = 0
    dollars: float = 0.0

    def over(self, budget: RolloutBudget) -> str:
        """'' while under every cap, else which cap was reached."""
        if budget.max_calls is not None and self.calls >= budget.max_calls:
            return f"the rollout's budget of {budget.max_calls} model calls is spent"
        if budget.max_tokens is not None and self.tokens >= budget.max_tokens:
            return f"the rollout's budget of {budget.max_tokens} tokens is spent"
        if budget.max_dollars is not None and self.dollars >= budget.max_dollars:
            return f"the rollout's budget of ${budget.max_dollars} is spent"
        return ""
