"""A fixed yardstick per behaviour profile, pure apart from reading and writing its JSON.

A profile's yardstick is every point ever measured on it (the seed, each mechanism alone,
every strategy's operating points; each labelled), with the reference cost fixed once, when
it is first built, at REF_COST_MULTIPLE times the seed's cost per task on the test split.
Its reference front is the non-dominated subset of those points. Later benches on the same
test setup extend it and never remove a point, so its hypervolume can only grow and a
strategy's normalised hypervolume does not depend on which other strategies ran beside it.

Figures against it, per run (points are (pass rate, cost per task), pass maximised):
- normalised hypervolume: HV(run's points) / HV(reference front), both at the reference point
  (pass 0, reference cost); a point at or above the reference cost adds nothing;
- hypervolume gain over the seed: the same minus the seed point's own normalised
  hypervolume, i.e. the share of the yardstick's area the search added above its seed.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harnesspro.bench.arithmetic import Point, area, reference_front
from harnesspro.core.config_base import ConfigError

REF_COST_MULTIPLE = 2.0
Labelled = tuple[str, float, float]  # (label, pass rate, cost per task)


@dataclass(frozen=True)
class Yardstick:
    profile: int
    seed_cost: float
    points: tuple[Labelled, ...] = ()
    key: str = ""  # the test setup it was measured on (see `setup_key`)

    @property
    def ref_cost(self) -> float:
        return REF_COST_MULTIPLE * self.seed_cost

    def front(self) -> list[Point]:
        return reference_front([[(p, c) for _, p, c in self.points]])

    def hypervolume(self, points: Sequence[Point] | None = None) -> float:
        chosen = self.front() if points is None else list(points)
        return area(chosen, self.ref_cost)

    def normalised(self, points: Sequence[Point]) -> float:
        whole = self.hypervolume()
        return self.hypervolume(points) / whole if whole > 0 else math.nan

    def extended(self, new: Iterable[Labelled]) -> Yardstick:
        """The same yardstick with `new` points added (none removed, reference cost kept)."""
        have = set(self.points)
        added = [p for p in dict.fromkeys(new) if p not in have]
        return replace(self, points=(*self.points, *added))


def built(profile: int, seed_points: Sequence[Point], key: str = "") -> Yardstick:
    """A new yardstick whose reference cost is fixed by the mean of the seed's costs."""
    costs = [c for _, c in seed_points if math.isfinite(c)]
    if not costs:
        raise ValueError(f"profile {profile}: no seed cost to fix the reference cost with")
    return Yardstick(profile, sum(costs) / len(costs), (), key)


def setup_key(setup: dict[str, Any]) -> str:
    """A short hash of what makes test-split points comparable (split, K, prices, model)."""
    return hashlib.sha256(json.dumps(setup, sort_keys=True).encode()).hexdigest()[:16]


def path_for(folder: Path, profile: int) -> Path:
    return folder / f"profile-{profile}.json"


def load(path: Path) -> Yardstick | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        points = tuple((str(n), float(p), float(c)) for n, p, c in data["points"])
        return Yardstick(int(data["profile"]), float(data["seed_cost"]), points, data["key"])
    except (ValueError, KeyError, TypeError):
        raise ConfigError(f"{path}: not a yardstick file; remove it to rebuild it.") from None


def save(path: Path, yardstick: Yardstick) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "profile": yardstick.profile,
        "key": yardstick.key,
        "seed_cost": yardstick.seed_cost,
        "ref_cost_multiple": REF_COST_MULTIPLE,
        "points": [list(p) for p in yardstick.points],
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)


def stored(
    folder: Path, profile: int, key: str, seed_points: Sequence[Point], new: Iterable[Labelled]
) -> Yardstick:
    """The profile's stored yardstick (built now if there is none), extended with `new` and
    written back."""
    path = path_for(folder, profile)
    found = load(path)
    if found is not None and found.key != key:
        raise ConfigError(
            f"{path}: measured on another test setup (split, attempts, prices or model); "
            "use another --out or remove the file."
        )
    yardstick = (found or built(profile, seed_points, key)).extended(new)
    save(path, yardstick)
    return yardstick
