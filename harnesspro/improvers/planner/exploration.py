"""Thompson sampling over the catalog planner's predictions (`evolution.exploration`).

The catalog's expected effects are priors for an average model; on the model being tuned each
mechanism's effect is uncertain, and a planner that always ranks by the means never tries a
mechanism whose prior is near zero, however well it might work here. With exploration on, the
planner ranks mechanisms by one draw from each prediction's uncertainty instead of its mean: a
normal spread around the prediction (planner/catalog.py:predict, which already blends in the
run's measurements) whose standard deviation is the catalog's mean absolute effect - the prior
is taken to be as uncertain as the effects it predicts - shrunk by 1/sqrt(1 + n) for a
mechanism measured n times in the run (the prior counting as one measurement, as in
planner/evidence.py). Draws are seeded by the run seed, the epoch, the parent and the
mechanism, so a resumed epoch plans the same. Recorded predictions stay the means.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from statistics import mean

from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.improvers.planner.evidence import Beliefs, Prediction

PASS_SD = mean(abs(m.expected_pass) for m in CATALOG.values())
"""Spread of an unmeasured mechanism's pass-rate effect: the catalog's mean absolute one."""
COST_SD = mean(abs(m.expected_cost) for m in CATALOG.values())
"""Spread of an unmeasured mechanism's relative cost effect: the catalog's mean absolute one."""


@dataclass(frozen=True)
class Exploration:
    """The draws of one epoch: `key` is the run seed and the epoch."""

    key: str

    def draw(self, parent: str, p: Prediction, measured: int) -> Prediction:
        """One draw around `p` for `parent`, spread shrunk by the `measured` count."""
        rng = random.Random(f"{self.key}:{parent}:{p.mechanism.name}")
        scale = 1 / math.sqrt(1 + measured)
        d_pass = p.d_pass + rng.gauss(0.0, PASS_SD) * scale
        d_cost = p.d_cost + rng.gauss(0.0, COST_SD) * scale
        return Prediction(p.mechanism, d_pass, d_cost)

    def ranked(self, parent: str, options: list[Prediction], beliefs: Beliefs) -> list[Prediction]:
        """The draws the planner ranks `options` by."""
        counts = {
            p.mechanism.name: len(beliefs.measured.get(p.mechanism.name, ())) for p in options
        }
        return [self.draw(parent, p, counts[p.mechanism.name]) for p in options]
