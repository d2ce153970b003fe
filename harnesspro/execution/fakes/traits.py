"""What the scripted policy reads off a request (its traits), and the slip rate they give under a
behaviour profile."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harnesspro.execution.fakes import phrases
from harnesspro.execution.fakes.behaviour import BehaviourProfile
from harnesspro.execution.fakes.task_script import (
    TaskScript,
)


@dataclass(frozen=True)
class Traits:
    """What the policy reads off the visible prompt and parameters."""

    concise: bool
    verify: bool
    direct: bool
    effort: str
    skim: bool = False
    fenced: bool = False

    @classmethod
    def read(cls, request: Mapping[str, Any], instruction: str = "") -> Traits:
        messages = request.get("messages", [])
        system = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
        instance = " ".join(
            str(m.get("content", "")) for m in messages[:2] if m.get("role") == "user"
        )
        found = phrases.prompt_traits(f"{system}\n{instance}", instruction)
        effort = str(request.get("reasoning_effort") or "medium")
        return cls(
            concise="concise" in found,
            verify="verify" in found,
            direct="direct" in found,
            effort=effort if effort in ("low", "medium", "high") else "medium",
            skim="skim" in found,
            fenced=not request.get("tools"),
        )


def slip_rate(script: TaskScript, traits: Traits, profile: BehaviourProfile, hidden: bool) -> float:
    """Behaviour model 4: the chance a step is first issued with a typo."""
    p = profile.p_slip * profile.effort_slip.get(traits.effort, 1.0) ** (
        profile.difficulty_weight.get(script.difficulty, 1.0)
    )
    p *= profile.direct_slip if traits.direct else 1.0
    p *= profile.concise_slip if traits.concise else 1.0
    p *= profile.fenced_slip if traits.fenced else 1.0
    p *= profile.hidden_slip if hidden and script.category in profile.needs_full_view else 1.0
    return min(p, 0.95)
