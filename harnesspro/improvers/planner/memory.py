"""Proposer memory: every plan's prediction checked against its measured effect.

The effect is paired: the child and its parent ran the same coreset tasks and attempts on
common random numbers, so the interval is a bootstrap over tasks of the child-minus-parent
difference (pass rate in points, cost per task relative). A verdict per plan, stored in the
ledger and shown to later planners:
- `confounded`: the child's change is not the plan's alone (its tree was also made by a plan
  with another change, or the edit touched files the plan did not name);
- `no effect`: both intervals reach into the negligible band (within NEGLIGIBLE_PASS points
  of pass rate and NEGLIGIBLE_COST of relative cost, zero included);
- `helped` / `hurt`: otherwise, judged on the directive's own objective (performance-first:
  pass up, or cost down without pass down; cost-first: cost down without pass down, or pass
  up without cost up; balanced: pass gain minus relative cost change).
Costs may be unknown (unpriced models): then tokens per task stand in, and the verdict says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harnesspro.core.records import Effect, Plan

NEGLIGIBLE_PASS = 0.01  # a pass-rate change smaller than one point is no effect
NEGLIGIBLE_COST = 0.02  # nor is a cost change under 2%


@dataclass(frozen=True)
class Pairs:
    """Parent and child rollouts matched by (task, attempt)."""

    tasks: np.ndarray
    parent_pass: np.ndarray
    child_pass: np.ndarray
    parent_cost: np.ndarray
    child_cost: np.ndarray
    unit: str = "dollars"
    """`dollars`, or `tokens` when a cost is unknown."""


@dataclass(frozen=True)
class Difference:
    """Child minus parent: the means and their bootstrap interval."""

    d_pass: float
    pass_lo: float
    pass_hi: float
    d_cost: float
    """Relative change of mean cost per task."""
    cost_lo: float
    cost_hi: float


def _stats(pairs: Pairs, idx: np.ndarray) -> tuple[float, float]:
    d_pass = float(pairs.child_pass[idx].mean() - pairs.parent_pass[idx].mean())
    before = float(pairs.parent_cost[idx].mean())
    d_cost = float(pairs.child_cost[idx].mean()) / before - 1 if before else 0.0
    return d_pass, d_cost


def paired_difference(
    pairs: Pairs, resamples: int = 1000, confidence: float = 0.9, seed: int = 0
) -> Difference:
    """Means of the paired differences and a bootstrap interval resampling whole tasks."""
    tasks = np.unique(pairs.tasks)
    rows = [np.flatnonzero(pairs.tasks == t) for t in tasks]
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(resamples):
        picked = rng.integers(0, len(tasks), len(tasks))
        draws.append(_stats(pairs, np.concatenate([rows[i] for i in picked])))
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(np.array(draws), [tail, 100 - tail], axis=0)
    d_pass, d_cost = _stats(pairs, np.arange(len(pairs.tasks)))
    return Difference(d_pass, lo[0], hi[0], d_cost, lo[1], hi[1])


def measure(plan: Plan, diff: Difference, unit: str, confounders: list[str]) -> Effect:
    """The plan's measured effect and verdict (see the module docstring)."""
    d_cost = diff.d_cost if unit == "dollars" else None
    if confounders:
        return Effect(diff.d_pass, d_cost, "confounded", "; ".join(confounders))
    pass_up, pass_down = diff.pass_lo > NEGLIGIBLE_PASS, diff.pass_hi < -NEGLIGIBLE_PASS
    cost_up, cost_down = diff.cost_lo > NEGLIGIBLE_COST, diff.cost_hi < -NEGLIGIBLE_COST
    span = (
        f"pass {diff.d_pass:+.3f} [{diff.pass_lo:+.3f}, {diff.pass_hi:+.3f}], {unit} per task "
        f"{diff.d_cost:+.1%} [{diff.cost_lo:+.1%}, {diff.cost_hi:+.1%}]"
    )
    if not (pass_up or pass_down or cost_up or cost_down):
        return Effect(diff.d_pass, d_cost, "no effect", f"no interval clears the band: {span}")
    if plan.directive == "performance-first":
        good = pass_up or (cost_down and not pass_down)
    elif plan.directive == "cost-first":
        good = (cost_down and not pass_down) or (pass_up and not cost_up)
    else:
        good = diff.d_pass - diff.d_cost > 0
    return Effect(diff.d_pass, d_cost, "helped" if good else "hurt", span)


def flipped_tasks(pairs: Pairs) -> dict[str, float]:
    """Coreset tasks whose pass rate changed from parent to child, with the change."""
    out = {}
    for task in np.unique(pairs.tasks):
        rows = pairs.tasks == task
        change = float(pairs.child_pass[rows].mean() - pairs.parent_pass[rows].mean())
        if change:
            out[str(task)] = change
    return out


def check_flips(expected: tuple[str, ...], pairs: Pairs) -> str:
    """The planner's expected flips against the measured per-task results, in words ('' when
    it expected none)."""
    if not expected:
        return ""
    flipped = flipped_tasks(pairs)
    held = [t for t in expected if flipped.get(t, 0.0) > 0]
    parts = [f"expected flips {len(held)}/{len(expected)} measured"]
    missed = [t for t in expected if t not in held]
    if missed:
        parts.append(f"not flipped: {', '.join(missed)}")
    others = sorted(t for t in flipped if t not in expected)
    if others:
        parts.append(f"unexpected changes: {', '.join(f'{t} {flipped[t]:+.2f}' for t in others)}")
    return "; ".join(parts)
