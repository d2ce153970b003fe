"""Proposals by expected hypervolume gain under the surrogate's posterior, shared by the
default strategy's catalog and llm modes: every pool genome scored under the same posterior
draws, one pick per region of the front, and each pick's plan with its predicted change as the
coreset will measure it."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harnesspro.core.records import Plan
from harnesspro.evolution.strategies.state import SearchState
from harnesspro.improvers.planner.hvgain import Pick, choose, shortlist, thirds
from harnesspro.improvers.planner.space import CATALOG_SPACE, Space
from harnesspro.improvers.planner.surrogate import Surrogate
from harnesspro.run.context import SEED_ID

DRAWS = 64  # posterior draws per decision
CHUNK = 4096  # genomes scored at once (memory: draws x chunk x tasks)
REGION = {"cost-first": "cheap end", "balanced": "knee", "performance-first": "strong end"}


def pool_points(
    model: Surrogate, pool: npt.NDArray[np.bool_], w_pass: np.ndarray, w_cost: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every pool genome's pass rate and cost under each draw, in chunks."""
    out = [model.score(pool[i : i + CHUNK], w_pass, w_cost) for i in range(0, len(pool), CHUNK)]
    return np.hstack([p for p, _ in out]), np.hstack([c for _, c in out])


@dataclass(frozen=True)
class Proposal:
    """The picks, as indices into the shortlisted pool, with the pool's posterior draws and
    each shortlisted genome's row in the pool it was given."""

    picks: list[Pick]
    rows: npt.NDArray[np.int64]
    pool: npt.NDArray[np.bool_]
    pool_pass: np.ndarray
    pool_cost: np.ndarray


def propose(
    model: Surrogate,
    known: npt.NDArray[np.bool_],
    pool: npt.NDArray[np.bool_],
    ref_cost: float | None,
    rounds: int,
    rng: np.random.Generator,
) -> Proposal:
    """`rounds` x one pick per region among `pool`, by expected gain over the front the
    `known` genomes make, each draw of the posterior alike. The hypervolume is bounded by the
    run's fixed reference cost (twice the seed's, as every epoch's selection measures its
    front), so a pick dearer than that gains nothing here as it gains nothing there; before
    one is fixed, twice the dearest predicted cost of the known genomes."""
    w_pass, w_cost = model.draws(rng, DRAWS)
    front_pass, front_cost = model.score(known, w_pass, w_cost)
    pool_pass, pool_cost = pool_points(model, pool, w_pass, w_cost)
    if ref_cost is None or not math.isfinite(ref_cost) or ref_cost <= 0:
        ref_cost = 2 * float(np.max(front_cost))
    bands = thirds(model.mean(known)[1], ref_cost) * rounds
    ref = (0.0, ref_cost)
    short = shortlist(front_pass, front_cost, pool_pass, pool_cost, ref, bands)
    pool, pool_pass, pool_cost = pool[short], pool_pass[:, short], pool_cost[:, short]
    return Proposal(choose(front_pass, front_cost, pool_pass, pool_cost, ref, bands),
                    np.asarray(short, dtype=np.int64), pool, pool_pass, pool_cost)  # fmt: skip


@dataclass(frozen=True)
class Forecast:
    """A pick's measured pass rate and cost per task, drawn from the posterior predictive,
    and the seed's measured figures the prediction is relative to."""

    pass_rate: np.ndarray
    cost: np.ndarray
    seed_pass: float
    seed_cost: float

    def pass_change(self) -> tuple[float, float, float]:
        """Mean and 90% interval of the pass-rate change against the seed."""
        low, high = np.percentile(self.pass_rate - self.seed_pass, [5, 95])
        return float(np.mean(self.pass_rate)) - self.seed_pass, float(low), float(high)

    def cost_change(self) -> tuple[float, float, float]:
        """Mean and 90% interval of the relative cost change (0s when the seed's is unknown)."""
        if not self.seed_cost or not math.isfinite(self.seed_cost):
            return 0.0, 0.0, 0.0
        rel = self.cost / self.seed_cost - 1
        low, high = np.percentile(rel, [5, 95])
        return float(np.mean(self.cost)) / self.seed_cost - 1, float(low), float(high)

    def describe(self) -> str:
        """The predicted changes against the seed with their 90% intervals, in words."""
        d_pass, p_low, p_high = self.pass_change()
        d_cost, c_low, c_high = self.cost_change()
        return (f"pass {d_pass:+.2f} [{p_low:+.2f}, {p_high:+.2f}], cost {d_cost:+.0%} "
                f"[{c_low:+.0%}, {c_high:+.0%}]")  # fmt: skip


def plan_of(
    pick: Pick, bits: npt.NDArray[np.bool_], forecast: Forecast, space: Space = CATALOG_SPACE
) -> Plan:
    """The plan of one pick (a genome of `space`): its region, expected gain and predicted
    change with intervals."""
    d_pass, p_low, p_high = forecast.pass_change()
    d_cost, c_low, c_high = forecast.cost_change()
    why = (
        f"fills the {REGION[pick.band.directive]} of the front: expected hypervolume gain "
        f"{pick.gain:.3g}; predicted against the seed: {forecast.describe()} (90%, as measured)"
    )
    return Plan(
        SEED_ID, pick.band.directive, space.name_of(bits), why, round(d_pass, 4),
        round(d_cost, 4), levers=space.levers_of(bits),
        pass_interval=(round(p_low, 4), round(p_high, 4)),
        cost_interval=(round(c_low, 4), round(c_high, 4)),
    )  # fmt: skip


def forecast_of(
    state: SearchState, model: Surrogate, proposal: Proposal, pick: Pick, rng: np.random.Generator
) -> Forecast:
    """A pick as the coreset will measure it: the posterior plus the noise of n rollouts."""
    prs, costs = proposal.pool_pass[:, pick.index], proposal.pool_cost[:, pick.index]
    seed = state.scores[SEED_ID]
    n = seed.n_rollouts
    measured_pass = prs + rng.normal(0, 1, len(prs)) * np.sqrt(prs * (1 - prs) / n)
    measured_cost = costs * np.exp(rng.normal(0, np.sqrt(model.noise_var / n), len(costs)))
    return Forecast(measured_pass, measured_cost, seed.pass_rate, seed.cost_per_task)
