"""Greedy stacks for the yardstick: mechanisms stacked in the order of their measured single
effects, so the reference front holds points with several mechanisms, as the true front does
(each mechanism alone rarely reaches it).

Two orders, both from the test-split points of the seed and of each mechanism alone:

- `pass`: the mechanisms that raised the pass rate, largest gain first (ties: the cheaper);
- `cost`: the mechanisms that lowered the cost per task without losing more than one test
  rollout's worth of pass rate, largest cut first (ties: the higher pass rate).

Each order gives its prefixes of two mechanisms and more, skipping a mechanism that cannot sit
beside one already stacked (`exclusive`: they set the same setting).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Point = tuple[float, float]  # (pass rate, cost per task)


def orders(singles: Mapping[str, Point], seed: Point, step: float) -> dict[str, list[str]]:
    """The `pass` and `cost` orders of the mechanisms measured alone; `step` is one test
    rollout's share of the pass rate (1 / (tasks x K))."""
    seed_pass, seed_cost = seed
    gains = [(p - seed_pass, -c, name) for name, (p, c) in singles.items() if p > seed_pass]
    cuts = [
        (seed_cost - c, p, name)
        for name, (p, c) in singles.items()
        if c < seed_cost and p >= seed_pass - step - 1e-12
    ]
    return {
        "pass": [name for *_, name in sorted(gains, key=lambda g: (-g[0], -g[1], g[2]))],
        "cost": [name for *_, name in sorted(cuts, key=lambda g: (-g[0], -g[1], g[2]))],
    }


def stacks(order: Sequence[str], exclusive: Sequence[Sequence[str]]) -> list[tuple[str, ...]]:
    """The prefixes of `order` with two mechanisms or more, each skipping a mechanism that
    cannot sit beside one already in it."""
    out: list[tuple[str, ...]] = []
    held: list[str] = []
    for name in order:
        if any(name in group and set(group) & set(held) for group in exclusive):
            continue
        held.append(name)
        if len(held) >= 2:
            out.append(tuple(held))
    return out
