"""The loop's decide step: which of the planner's proposals are edited, by expected
hypervolume gain per region of the front, and whether any is worth trying at all.

Each proposal is placed in the surrogate's feature space as its parent's lineage plus its own
change (strategies/llm_gain.py:planned_genomes), so the prediction for a change on a selected
parent includes everything that parent carries. Under every posterior draw the measured
candidates make a front; a proposal's gain is the hypervolume it adds inside its directive's
band (cheap end, knee, strong end; hvgain.thirds). Per band, in turn, the proposals planned
under that directive compete; the best joins each draw's front (a fantasy) before the next.

Worth trying: a proposal's expected gain must clear the front's noise, the larger of twice its
Monte Carlo standard error over the draws (a gain the draws cannot tell from zero) and
`MIN_SHARE` of the front's expected hypervolume (a gain no coreset measurement resolves).
When no proposal clears it, the decision is to stop.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harnesspro.core.pareto import hypervolume
from harnesspro.core.records import DIRECTIVES, Directive, Plan
from harnesspro.evolution.strategies.llm_gain import planned_genomes, planner_plan, proposal_key
from harnesspro.evolution.strategies.loop_stacks import KEEP, Stacks, stack_plan
from harnesspro.evolution.strategies.proposals import DRAWS, Proposal, forecast_of, pool_points
from harnesspro.evolution.strategies.state import SearchState
from harnesspro.improvers.analyzer.findings import Finding
from harnesspro.improvers.planner.features import Change, Features
from harnesspro.improvers.planner.hvgain import Band, Pick, gains, shortlist, thirds
from harnesspro.improvers.planner.measured import surrogate_of
from harnesspro.improvers.planner.surrogate import Prior, Surrogate

Array = np.ndarray
Z = 2.0  # standard errors a gain must clear
MIN_SHARE = 0.005  # of the front's expected hypervolume


@dataclass(frozen=True)
class Decision:
    """The chosen plans, and the best gain against the noise it had to clear."""

    plans: list[Plan]
    best_gain: float
    noise: float
    proposals: int

    @property
    def stops(self) -> bool:
        """Nothing worth trying: the run should end."""
        return not self.plans


@dataclass(frozen=True)
class Draws:
    """The front's and the proposals' points under each posterior draw (rows)."""

    front_pass: Array
    front_cost: Array
    pool_pass: Array
    pool_cost: Array
    ref: tuple[float, float]


def gain_draws(d: Draws, band: Band | None) -> Array:
    """Each proposal's (columns) hypervolume gain under each draw (rows), inside `band`."""
    span = (-math.inf, math.inf) if band is None else (band.lo, band.hi)
    return np.array([
        gains(d.front_pass[s], d.front_cost[s], d.pool_pass[s], d.pool_cost[s], d.ref, span)
        for s in range(len(d.pool_pass))
    ]).reshape(len(d.pool_pass), -1)  # fmt: skip


def front_noise(d: Draws) -> float:
    """`MIN_SHARE` of the front's expected hypervolume."""
    volumes = [hypervolume(p, c, d.ref[1]) for p, c in zip(d.front_pass, d.front_cost, strict=True)]
    return MIN_SHARE * float(np.mean(volumes))


def clear(samples: Array, floor: float) -> tuple[Array, Array]:
    """Each proposal's expected gain and the noise it must clear."""
    mean = samples.mean(axis=0)
    se = samples.std(axis=0, ddof=1) / math.sqrt(len(samples)) if len(samples) > 1 else mean * 0
    return mean, np.maximum(Z * se, floor)


def pick_bands(
    d: Draws, bands: Sequence[Band], directives: Sequence[str]
) -> tuple[list[Pick], float, float]:
    """One pick per band among the proposals planned under its directive (whole-front gain
    when none gains inside the band), each clearing the noise; the best gain seen and the
    noise it faced."""
    floor, picks, best, faced = front_noise(d), [], 0.0, 0.0
    taken: set[int] = set()
    for band in bands:
        mine = np.array([t == band.directive for t in directives]) & ~np.isin(
            np.arange(len(directives)), list(taken)
        )
        mean, noise = clear(gain_draws(d, band), floor)
        if not np.any(mine & (mean > 0)):
            mean, noise = clear(gain_draws(d, None), floor)
        worth = np.where(mine & (mean > noise), mean, -np.inf)
        if np.any(mine):
            i = int(np.argmax(np.where(mine, mean, -np.inf)))
            if mean[i] > best:
                best, faced = float(mean[i]), float(noise[i])
        if not np.isfinite(worth).any():
            continue
        k = int(np.argmax(worth))
        taken.add(k)
        picks.append(Pick(k, band, float(mean[k])))
        d = Draws(np.hstack([d.front_pass, d.pool_pass[:, k : k + 1]]),
                  np.hstack([d.front_cost, d.pool_cost[:, k : k + 1]]),
                  d.pool_pass, d.pool_cost, d.ref)  # fmt: skip
    return picks, best, faced


PriorOf = Callable[[Features], Prior]
StacksOf = Callable[[Features], list[Stacks]]
Source = tuple[Stacks | None, int, Directive]
"""A pool entry: (None, index into the planned plans) or (stacks, row); its directive."""


@dataclass
class Pool:
    """The proposals that compete: their feature rows' points under each draw, and sources."""

    pool_pass: list[Array]
    pool_cost: list[Array]
    sources: list[Source]

    def add(self, points: tuple[Array, Array], sources: list[Source]) -> None:
        self.pool_pass.append(points[0])
        self.pool_cost.append(points[1])
        self.sources += sources

    def points(self) -> tuple[Array, Array]:
        return np.hstack(self.pool_pass), np.hstack(self.pool_cost)


def add_stacks(
    pool: Pool,
    stacks: Stacks,
    model: Surrogate,
    w: tuple[Array, Array],
    front: tuple[Array, Array],
    ref: tuple[float, float],
    bands: list[Band],
) -> None:
    """Per directive, the `KEEP` stacks it serves with the largest expected gain in its
    region and over the whole front."""
    pp, pc = pool_points(model, stacks.rows, *w)
    for d in DIRECTIVES:
        idx = np.flatnonzero(stacks.serves[d])
        band = next((b for b in bands if b.directive == d), None)
        if not len(idx) or band is None:
            continue
        keep = idx[shortlist(*front, pp[:, idx], pc[:, idx], ref, [band], KEEP)]
        pool.add((pp[:, keep], pc[:, keep]), [(stacks, int(k), d) for k in keep])


def decide(
    state: SearchState, planned: list[Plan], measured: tuple[Change, ...], prior_of: PriorOf,
    rounds: int, stacks_of: StacksOf | None = None,
    told: Mapping[str, Sequence[Finding]] | None = None,
) -> Decision:  # fmt: skip
    """The plans chosen among `planned` and the parents' stacks (`rounds` picks per region),
    or none: stop."""
    proposed = tuple(
        Change(proposal_key(i), p.predicted_pass, p.predicted_cost, p.levers)
        for i, p in enumerate(planned)
        if p.kind == "free"
    )
    features = Features(measured + proposed, state.space)
    model, genomes = surrogate_of(state.rollouts, state.coreset, state.candidates,
                                  state.scores, features, prior_of(features))  # fmt: skip
    rows, sources = planned_genomes(features, planned, state.candidates)
    stacks = stacks_of(features) if stacks_of else []
    total = len(planned) + sum(len(s.added) for s in stacks)
    if not genomes or (not len(rows) and not stacks):
        return Decision([], 0.0, 0.0, total)
    rng = np.random.default_rng(state.run_seed * 1000 + state.epoch)
    known = np.array(list(genomes.values()), dtype=bool)
    w = model.draws(rng, DRAWS)
    front = model.score(known, *w)
    ref_cost = state.ref_cost
    if ref_cost is None or not math.isfinite(ref_cost) or ref_cost <= 0:
        ref_cost = 2 * float(np.max(front[1]))
    ref, bands = (0.0, ref_cost), thirds(model.mean(known)[1], ref_cost) * rounds
    pool = Pool([], [], [])
    pool.add(model.score(rows, *w), [(None, s, planned[s].directive) for s in sources])
    for s in stacks:
        add_stacks(pool, s, model, w, front, ref, bands)
    pool_pass, pool_cost = pool.points()
    picks, best, noise = pick_bands(
        Draws(*front, pool_pass, pool_cost, ref), bands, [d for _, _, d in pool.sources]
    )
    proposal = Proposal(picks, np.arange(len(pool.sources)), np.zeros((0, 0), bool), pool_pass,
                        pool_cost)  # fmt: skip
    chosen = []
    for p in picks:
        source, index, directive = pool.sources[p.index]
        plan = planned[index] if source is None else stack_plan(
            source, index, directive, (told or {}).get(source.parent, ())
        )  # fmt: skip
        chosen.append(planner_plan(plan, p, forecast_of(state, model, proposal, p, rng)))
    return Decision(chosen, best, noise, total)
