"""How many candidates a generation of a baseline search (`nsga2`, `random`) holds, so that
under a rollout cap it still runs several generations: uncapped, its own size; capped, about a
third of the candidates the whole cap pays for (a first generation and two of offspring, the
last one cut by the cap), at least `SMALLEST`."""

from __future__ import annotations

GENERATIONS = 3
"""Generations a capped run is sized for."""
SMALLEST = 3
"""The smallest generation: fewer gives a tournament and a crossover nothing to choose from."""


def generation_size(uncapped: int, paid: int | None) -> int:
    """Candidates a generation holds: `uncapped` without a cap, else enough that
    `GENERATIONS` generations spend the `paid` candidates (the seed counted in the first)."""
    if paid is None:
        return uncapped
    return min(uncapped, max(SMALLEST, -(-(paid + 1) // GENERATIONS)))
