"""The latent behaviour factors as probabilities: what one request's reading (context length,
instruction weights, reasoning effort, temperature) and a task's own random effects make of a
profile. Pure functions; the policy draws against them."""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass

from harnesspro.execution.world.profile import WorldProfile

EFFORT_LEVELS = {"none": 0, "minimal": 0, "low": 1, "medium": 2, "high": 3}
EFFORT_SCALE = 1.5  # effort levels at which 63% of a saturating effort effect applies
TOLD_REPEAT = 0.15  # what is left of repeating once the harness says it is repeating
# The sensitivities a task scales by its own random multiplier (task-by-factor effects).
TASK_SCALED = (
    "context_gain", "check_gain", "survey_gain", "focus_gain", "whole_gain", "brief_gain",
    "effort_gain",
)  # fmt: skip


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def saturating(x: float, scale: float) -> float:
    """1 - exp(-x / scale): 0 at 0, 0.63 at `scale`, towards 1."""
    return 1.0 - math.exp(-max(x, 0.0) / scale)


@dataclass(frozen=True)
class Reading:
    """What the model takes in from one request."""

    tokens: int
    weights: dict[str, float]
    effort: int
    temperature: float


@dataclass(frozen=True)
class TaskEffects:
    """A task's own draws under a profile: a slip offset and a multiplier per sensitivity."""

    offset: float
    scale: dict[str, float]

    @classmethod
    def of(cls, profile: WorldProfile, instruction: str) -> TaskEffects:
        key = hashlib.sha256(instruction.encode()).hexdigest()[:16]
        rng = random.Random(f"world-v3-task:{profile.seed}:{key}")
        offset = rng.gauss(0.0, profile.task_sd)
        scale = {name: math.exp(rng.gauss(0.0, profile.task_factor_sd)) for name in TASK_SCALED}
        return cls(offset, scale)


class Factors:
    """The factor probabilities for one request under one profile and task."""

    def __init__(self, profile: WorldProfile, task: TaskEffects, reading: Reading) -> None:
        self.p, self.task, self.r = profile, task, reading

    def gain(self, name: str) -> float:
        value: float = getattr(self.p, name)
        return value * self.task.scale.get(name, 1.0)

    def w(self, intent: str) -> float:
        return self.r.weights.get(intent, 0.0)

    @property
    def context(self) -> float:
        """How full the context feels, 0-1 (saturating in tokens)."""
        return saturating(self.r.tokens, self.p.context_scale)

    @property
    def effort_shift(self) -> float:
        """Saturating effort relative to medium (negative below it)."""
        return saturating(self.r.effort, EFFORT_SCALE) - saturating(2, EFFORT_SCALE)

    def slip(self, long_inputs_seen: bool) -> float:
        """Chance the step about to be run slips."""
        x = self.p.slip_logit + self.task.offset + self.gain("context_gain") * self.context
        x -= self.gain("effort_gain") * self.effort_shift
        x -= self.gain("whole_gain") * long_inputs_seen
        x += self.p.temperature_slip * (self.r.temperature - 1.0)
        x += self.p.interaction * self.p.focus_slip * self.w("focus")
        return sigmoid(x)

    def explore_mean(self) -> float:
        """Mean look-around commands before the first step."""
        shift = self.gain("survey_gain") * self.w("survey") - self.gain("focus_gain") * self.w(
            "focus"
        )
        return self.p.explore_mean * math.exp(shift)

    def whole(self) -> float:
        """Chance a look reads a whole input."""
        return sigmoid(self.p.whole_read * self.w("whole"))

    def check(self) -> float:
        """Chance it checks its work before answering."""
        x = self.p.check_logit + self.gain("check_gain") * self.w("check")
        x -= self.p.interaction * self.p.brief_check * self.w("brief")
        return sigmoid(x)

    def catch(self) -> float:
        """Chance a check notices a broken step."""
        x = logit(self.p.catch) - self.p.interaction * self.p.context_catch * self.context
        return sigmoid(x)

    def use_error(self) -> float:
        """Chance it redoes a failed step correctly after seeing the error."""
        x = logit(self.p.error_use) + self.p.interaction * self.p.effort_errors * (
            self.r.effort - 2
        )
        return sigmoid(x)

    def malformed(self) -> float:
        """Chance a command comes out malformed (bad JSON, or a missing closing fence)."""
        return sigmoid(self.p.format_logit + self.p.format_context * self.context)

    def words(self) -> float:
        """Words per reply before rambling."""
        n = self.p.words * math.exp(-self.gain("brief_gain") * self.w("brief"))
        return max(1.0, n * (1.0 + self.p.effort_words * (self.r.effort - 2)))

    def repeat(self, told: bool) -> float:
        """Chance it sends a failing command again unchanged (hidden factor)."""
        if not self.p.hidden_factors:
            return 0.0
        cool = math.exp(-self.p.temperature_repeat * (self.r.temperature - 1.0))
        return min(1.0, self.p.repeat * cool * (TOLD_REPEAT if told else 1.0))

    def idle(self) -> float:
        """Chance it keeps issuing no-op commands after the work (hidden factor)."""
        if not self.p.hidden_factors:
            return 0.0
        return self.p.idle * (1.0 - min(1.0, self.p.stop_gain * self.w("stop")))

    def script_slip(self) -> float:
        """Chance a file-writing step comes out as the file's contents (hidden factor)."""
        if not self.p.hidden_factors:
            return 0.0
        return self.p.script_slip * (1.0 - min(1.0, self.p.files_gain * self.w("files")))

    def near_miss(self, path_repeated: bool) -> float:
        """Chance an output goes under a slightly wrong name (hidden factor)."""
        if not self.p.hidden_factors:
            return 0.0
        return self.p.near_miss * (1.0 - min(1.0, self.p.path_gain * path_repeated))
