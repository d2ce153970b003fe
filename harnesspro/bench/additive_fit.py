"""Is a world additive over the catalog's bits? A logistic model with one bit per catalog
mechanism and one intercept per task is fitted on some candidates' rows of a calibration
table and scored, by its log loss, on other candidates' rows; a task-only model fitted on the
same rows is the yardstick. A world built like that regression gives the bits a large
out-of-sample gain; a world where the mechanisms' effects interact, vanish or depend on the
task gives little or none.

Candidates: with drawn stacks in the plan, the first half (in the plan's order) are fitted and
the second half scored; without, the singles are fitted and the pairs and stacks scored (does
each part's effect alone predict the combination?). The seed and the base are left out: the
bits are what a candidate adds to the base."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

from harnesspro.bench.calibration import Plan, Variant

PROBABILITY_FLOOR = 1e-3
"""Predictions are clipped to [floor, 1 - floor] so one confident miss cannot dominate."""


@dataclass(frozen=True)
class AdditiveFit:
    """Out-of-sample log loss of the additive model and of the task-only one."""

    fitted: int
    """Candidates fitted on."""
    scored: int
    """Candidates scored on."""
    rows: int
    """Rollouts scored on."""
    additive_loss: float
    task_only_loss: float

    @property
    def gain(self) -> float:
        """How much the catalog's bits lower the loss (nats per rollout; > 0 = they predict)."""
        return self.task_only_loss - self.additive_loss


def split(plan: Plan) -> tuple[list[Variant], list[Variant]]:
    """(fitted, scored) candidates of the plan, as the module docstring says."""
    drawn = [v for v in plan.variants if v.kind == "drawn"]
    if drawn:
        half = len(drawn) // 2
        return drawn[:half], drawn[half:]
    singles = [v for v in plan.variants if v.kind == "single"]
    return singles, [v for v in plan.variants if v.kind in ("pair", "stack")]


def _design(
    rows: Sequence[Mapping[str, Any]],
    variants: Mapping[str, Variant],
    bits: Sequence[str],
    tasks: Sequence[str],
) -> tuple[np.ndarray, np.ndarray]:
    """Features (mechanism bits, then task one-hot) and verdicts of `rows`."""
    x = np.zeros((len(rows), len(bits) + len(tasks)))
    for i, r in enumerate(rows):
        for m in variants[r["variant"]].mechanisms:
            x[i, bits.index(m)] = 1.0
        x[i, len(bits) + tasks.index(r["task"])] = 1.0
    return x, np.array([bool(r["official_pass"]) for r in rows], dtype=float)


def _log_loss(fit_x: np.ndarray, fit_y: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    """Mean log loss on (x, y) of a logistic model fitted on (fit_x, fit_y); one class only
    in the fitted rows: its smoothed rate."""
    if len(set(fit_y)) < 2:
        p = np.full(len(y), (fit_y.sum() + 0.5) / (len(fit_y) + 1.0))
    else:
        model = LogisticRegression(C=1.0, max_iter=2000).fit(fit_x, fit_y)
        p = model.predict_proba(x)[:, 1]
    p = np.clip(p, PROBABILITY_FLOOR, 1 - PROBABILITY_FLOOR)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def additive_fit(plan: Plan, rows: Iterable[Mapping[str, Any]]) -> AdditiveFit | None:
    """The fit on the table's graded rows (None when either side has no rows)."""
    fitted, scored = split(plan)
    variants = {v.name: v for v in fitted + scored}
    graded = [r for r in rows if r["variant"] in variants and r.get("official_pass") is not None]
    names = {v.name for v in fitted}
    train = [r for r in graded if r["variant"] in names]
    test = [r for r in graded if r["variant"] not in names]
    tasks = sorted({r["task"] for r in train})
    test = [r for r in test if r["task"] in tasks]
    if not train or not test:
        return None
    bits = sorted({m for v in variants.values() for m in v.mechanisms})
    fit_x, fit_y = _design(train, variants, bits, tasks)
    x, y = _design(test, variants, bits, tasks)
    only = slice(len(bits), None)
    return AdditiveFit(
        fitted=len({r["variant"] for r in train}),
        scored=len({r["variant"] for r in test}),
        rows=len(test),
        additive_loss=_log_loss(fit_x, fit_y, x, y),
        task_only_loss=_log_loss(fit_x[:, only], fit_y, x[:, only], y),
    )
