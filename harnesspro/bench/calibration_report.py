"""What a calibration table says: each variant's pass rate and tokens against the base, with
intervals over tasks; the share of tasks whose verdict flips between identical attempts; how
much an effect varies from task to task; each pair's and stack's interaction against the sum
of its parts' effects. Pure computation over the table's rows and its plan."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from harnesspro.bench.calibration import Plan

BOOTSTRAP = 2000
LEVEL = 0.90


@dataclass(frozen=True)
class Estimate:
    """A mean with its 90% bootstrap interval over tasks."""

    mean: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class VariantRow:
    """One variant against the base, on the tasks both were measured on."""

    name: str
    kind: str
    rollouts: int
    pass_rate: float
    tokens: float | None
    """Mean input + output tokens per rollout (None: some usage unknown)."""
    pass_effect: Estimate | None
    """Pass-rate difference to the base, per task then averaged (None for the base)."""
    token_effect: Estimate | None
    """Relative token difference to the base (ratio - 1)."""
    task_spread: float | None
    """SD over tasks of the per-task pass effect."""
    flip_share: float
    """Share of tasks whose attempts disagree."""
    interaction: Estimate | None = None
    """Pass effect minus the sum of its parts' effects (pairs and stacks whose parts were all
    measured alone)."""


def acts(row: VariantRow) -> bool:
    """Whether a variant measures an effect: its pass or token interval excludes zero."""
    return any(e is not None and e.excludes_zero for e in (row.pass_effect, row.token_effect))


Cells = dict[str, dict[str, list[dict[str, Any]]]]
"""variant -> task -> rows."""


def cells(rows: Iterable[Mapping[str, Any]]) -> Cells:
    """Rows grouped by variant and task; infrastructure faults left out (never failures)."""
    grouped: Cells = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row.get("status") != "infra_error" and row.get("official_pass") is not None:
            grouped[row["variant"]][row["task"]].append(dict(row))
    return grouped


def _per_task(by_task: Mapping[str, list[dict[str, Any]]], field: str) -> dict[str, float]:
    return {t: float(np.mean([float(r[field]) for r in rs])) for t, rs in by_task.items()}


def _tokens(r: Mapping[str, Any]) -> float | None:
    if r.get("input_tokens") is None or r.get("output_tokens") is None:
        return None
    return float(r["input_tokens"] + r["output_tokens"])


def bootstrap(values: np.ndarray, rng: np.random.Generator) -> Estimate:
    """The mean of `values` with a percentile bootstrap interval."""
    if len(values) == 0:
        return Estimate(float("nan"), float("nan"), float("nan"))
    draws = rng.choice(values, size=(BOOTSTRAP, len(values)), replace=True).mean(axis=1)
    tail = (1 - LEVEL) / 2
    return Estimate(float(values.mean()), *map(float, np.quantile(draws, [tail, 1 - tail])))


def flip_share(by_task: Mapping[str, list[dict[str, Any]]]) -> float:
    """Share of tasks with at least two attempts whose verdicts are not all the same."""
    repeated = [rs for rs in by_task.values() if len(rs) >= 2]
    if not repeated:
        return float("nan")
    flips = [len({bool(r["official_pass"]) for r in rs}) > 1 for rs in repeated]
    return float(np.mean(flips))


def task_effects(
    variant: Mapping[str, list[dict[str, Any]]], base: Mapping[str, list[dict[str, Any]]]
) -> tuple[dict[str, float], dict[str, float] | None]:
    """Per task both ran: the pass-rate difference, and the token ratio - 1 (None when some
    usage is unknown)."""
    common = sorted(set(variant) & set(base))
    passed_v, passed_b = _per_task(variant, "official_pass"), _per_task(base, "official_pass")
    passes = {t: passed_v[t] - passed_b[t] for t in common}
    ratios: dict[str, float] = {}
    for t in common:
        mine, theirs = [_tokens(r) for r in variant[t]], [_tokens(r) for r in base[t]]
        if None in mine or None in theirs:
            return passes, None
        ratios[t] = float(np.mean(mine) / np.mean(theirs) - 1)  # type: ignore[arg-type]
    return passes, ratios


def _values(by_task: Mapping[str, float] | None) -> np.ndarray:
    return np.array(list((by_task or {}).values()))


def report(plan: Plan, rows: Iterable[Mapping[str, Any]], seed: int = 0) -> list[VariantRow]:
    """One row per variant with data, in the plan's order."""
    rng = np.random.default_rng(seed)
    grouped = cells(rows)
    base = grouped.get("base", {})
    measured = {
        v.name: task_effects(grouped[v.name], base) for v in plan.variants if grouped.get(v.name)
    }
    singles = {v.mechanisms[0]: measured[v.name][0] for v in plan.variants
               if v.kind == "single" and v.name in measured}  # fmt: skip
    out = []
    for variant in plan.variants:
        if variant.name not in measured:
            continue
        by_task = grouped[variant.name]
        flat = [r for rs in by_task.values() for r in rs]
        tokens = [_tokens(r) for r in flat]
        is_base = variant.name == "base"
        passes, ratios = measured[variant.name]
        combined = variant.kind in ("pair", "stack")
        out.append(
            VariantRow(
                variant.name, variant.kind, len(flat),
                float(np.mean([bool(r["official_pass"]) for r in flat])),
                None if None in tokens else float(np.mean(tokens)),  # type: ignore[arg-type]
                None if is_base else bootstrap(_values(passes), rng),
                None if is_base or ratios is None else bootstrap(_values(ratios), rng),
                None if is_base or len(passes) < 2 else float(np.std(_values(passes), ddof=1)),
                flip_share(by_task),
                interaction(variant.mechanisms, passes, singles, rng) if combined else None,
            )
        )  # fmt: skip
    return out


def interaction(
    parts: list[str],
    together: Mapping[str, float],
    singles: Mapping[str, Mapping[str, float]],
    rng: np.random.Generator,
) -> Estimate | None:
    """The combination's effect minus the sum of its parts' on the tasks all were measured on
    (None unless every part was measured alone)."""
    if not parts or any(p not in singles for p in parts):
        return None
    tasks = sorted(set(together).intersection(*(singles[p] for p in parts)))
    gaps = [together[t] - sum(singles[p][t] for p in parts) for t in tasks]
    return bootstrap(np.array(gaps), rng) if gaps else None
