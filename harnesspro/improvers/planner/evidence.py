"""What the run has measured so far, turned into the catalog planner's beliefs.

The catalog's expected effects are priors for an average model; a model can react otherwise,
and the analyzer's symptom can point to the wrong fix. Two updates from the run's own paired
verdicts (planner/memory.py, coreset only) correct the priors as evidence comes in:
- a mechanism already measured is predicted by the mean of its prior and its measurements,
  each measurement weighing as much as the prior;
- a symptom whose fixes were measured without benefit ("no effect" or "hurt") loses
  credibility, (1 + helped) / (1 + helped + failed), and the relevance it lends to every other
  mechanism that addresses it shrinks by that factor, so the planner turns to other levers.
A bundle's measurement is shared equally among its mechanisms (an additive model): each is
credited with its share of the pass-rate and cost changes and of the helped/failed count.
Confounded verdicts and plans never measured teach nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from harnesspro.harness.mechanisms.catalog import Mechanism, members
from harnesspro.improvers.inputs import Lesson


@dataclass(frozen=True)
class Prediction:
    """A mechanism's predicted effect on a parent: pass rate (absolute) and cost per task
    (relative change)."""

    mechanism: Mechanism
    d_pass: float
    d_cost: float


LEARNING = ("helped", "hurt", "no effect")


@dataclass(frozen=True)
class Beliefs:
    """Measured effects per mechanism and credibility per symptom kind."""

    measured: Mapping[str, tuple[tuple[float, float | None], ...]] = field(default_factory=dict)
    """Mechanism -> its measured (pass-rate change, relative cost change or None)."""
    credibility: Mapping[str, float] = field(default_factory=dict)
    """Symptom kind -> factor in (0, 1] on the relevance it lends; absent means 1."""

    def credible(self, kind: str) -> float:
        return self.credibility.get(kind, 1.0)


NO_EVIDENCE = Beliefs()


def beliefs_from(memory: Iterable[Lesson]) -> Beliefs:
    """Beliefs from this run's measured catalog plans (see the module docstring)."""
    measured: dict[str, list[tuple[float, float | None]]] = defaultdict(list)
    helped: dict[str, float] = defaultdict(float)
    failed: dict[str, float] = defaultdict(float)
    for lesson in memory:
        parts = members(lesson.name)
        if not parts or lesson.verdict not in LEARNING or lesson.measured_pass is None:
            continue
        share = 1 / len(parts)
        d_cost = None if lesson.measured_cost is None else lesson.measured_cost * share
        for mechanism in parts:
            measured[mechanism.name].append((lesson.measured_pass * share, d_cost))
            for kind in mechanism.addresses:
                if lesson.verdict == "helped":
                    helped[kind] += share
                else:
                    failed[kind] += share
    credibility = {kind: (1 + helped[kind]) / (1 + helped[kind] + failed[kind]) for kind in failed}
    return Beliefs({k: tuple(v) for k, v in measured.items()}, credibility)


def blend(prior: float, measurements: Iterable[float]) -> float:
    """Mean of the prior and the measurements, the prior counting as one measurement."""
    values = [prior, *measurements]
    return sum(values) / len(values)
