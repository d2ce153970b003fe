"""How optimistic the search's scores were, and what the search cost beside the gain it bought
(pure, over ledger frames and the held-out rows).

- `optimism`: per operating point, the estimate it was chosen on (the shrunk pass rate when
  the strategy chooses on the surrogate's estimates, else the raw one), its raw coreset
  pass rate, and its held-out pass rate; optimism = coreset - held-out (positive: the search
  overrated it).
- `search_gain`: the search's spend (target rollouts off the test split, and improver calls)
  beside each point's held-out gain over the seed, and the search dollars per point of pass
  rate gained.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from harnesspro.core.metrics import known_sum
from harnesspro.core.records import Score

OPTIMISM_COLUMNS = [
    "harness", "candidate", "chosen_on_pass", "coreset_pass", "heldout_pass", "optimism",
]  # fmt: skip
GAIN_COLUMNS = [
    "harness", "candidate", "heldout_pass", "gain_points", "g", "search_target_dollars",
    "search_improver_dollars", "search_dollars", "dollars_per_point",
]  # fmt: skip


def optimism(
    held_out: Sequence[Mapping[str, object]],
    chosen_on: Mapping[str, float],
    coreset: Mapping[str, Score],
) -> pd.DataFrame:
    """`held_out`: final.json's harness rows; `chosen_on`: candidate -> the pass rate its
    selection compared; `coreset`: the candidates' raw coreset scores."""
    rows = []
    for h in held_out:
        cid, held = str(h["candidate_id"]), _float(h.get("pass_rate"))
        raw = coreset[cid].pass_rate if cid in coreset else math.nan
        rows.append([h["harness"], cid, chosen_on.get(cid, math.nan), raw, held, raw - held])
    return pd.DataFrame(rows, columns=OPTIMISM_COLUMNS)


def search_spend(rollouts: pd.DataFrame, search_calls: pd.DataFrame) -> tuple[float, float]:
    """(target dollars on every split but test, improver dollars); NaN when unknown."""
    split = rollouts["split"].fillna("coreset")
    target = known_sum(rollouts[split != "test"]["cost"])
    improver = known_sum(search_calls["cost"]) if not search_calls.empty else 0.0
    return target, improver


def search_gain(
    held_out: Sequence[Mapping[str, object]], spend: tuple[float, float]
) -> pd.DataFrame:
    """Per operating point: held-out pass rate, gain over the seed in pass-rate points, g, and
    the search's dollars (the same for every point: one search bought them all) per point
    gained (NaN without a gain)."""
    seed = next((h for h in held_out if h["harness"] == "seed"), None)
    base = _float(seed.get("pass_rate")) if seed else math.nan
    target, improver = spend
    total = target + improver
    rows = []
    for h in held_out:
        if h["harness"] == "seed":
            continue
        points = 100 * (_float(h.get("pass_rate")) - base)
        per = total / points if points > 0 else math.nan
        rows.append([h["harness"], h["candidate_id"], _float(h.get("pass_rate")), points,
                     _float(h.get("gain")), target, improver, total, per])  # fmt: skip
    return pd.DataFrame(rows, columns=GAIN_COLUMNS)


def _float(value: object) -> float:
    return math.nan if value is None else float(value)  # type: ignore[arg-type]
