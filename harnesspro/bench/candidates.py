"""What each strategy's search found (the run folders of a bench), averaged over its runs: the
coreset pass rate of its candidates (the label-free verdicts the search saw), the area the
best of them dominates on the coreset, whether that candidate was one of the points handed
back, and the area it dominates on the test split when it was.

A point (p, c) alone dominates p x (ref - c); areas are given over the seed's own: on the
coreset against the run's reference cost, on the test split against twice the seed's cost
there (the bench's yardstick).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harnesspro.bench.folders import RunFolder
from harnesspro.bench.yardstick import REF_COST_MULTIPLE
from harnesspro.core.ledger import Ledger
from harnesspro.evolution.select_step import HV_REF_KEY
from harnesspro.run.context import SEED_ID


@dataclass(frozen=True)
class RunCandidates:
    """One run's search, seen from its best candidate on the coreset."""

    variant: str
    coreset_pass: float  # the candidates' mean coreset pass rate
    best_coreset_area: float  # the best candidate's coreset area, over the seed's
    best_handed_back: bool  # whether it is one of the run's test-split points
    best_test_area: float  # its test-split area over the seed's (NaN when not handed back)


def _areas(means: Mapping[str, tuple[float, float]], ref: float) -> dict[str, float]:
    """Each candidate's area over the seed's; means are (pass rate, cost) per candidate."""
    own = {c: p * max(ref - cost, 0.0) for c, (p, cost) in means.items()}
    return {c: a / own[SEED_ID] for c, a in own.items()}


def run_candidates(run: RunFolder) -> RunCandidates | None:
    """The run's figures; None for a run without test rollouts (stopped before the end)."""
    ledger = Ledger(run.path / "ledger.sqlite")
    try:
        rollouts = ledger.rollouts()
        ref = float(ledger.meta(HV_REF_KEY) or math.nan)
    finally:
        ledger.close()
    ok = rollouts[rollouts["status"] == "ok"].assign(split=rollouts["split"].fillna("coreset"))
    means = ok.groupby(["split", "candidate_id"])[["pass", "official_pass", "cost"]].mean()
    by: dict[str, dict[str, tuple[float, float]]] = {"coreset": {}, "test": {}}
    for split, candidate, passed, official, cost in means.reset_index().itertuples(index=False):
        verdict = passed if split == "coreset" else official  # the search's, or the official
        by.setdefault(split, {})[str(candidate)] = (float(verdict), float(cost))
    coreset, test = by["coreset"], by["test"]
    if not test:
        return None
    search = _areas(coreset, ref)
    held_out = _areas(test, REF_COST_MULTIPLE * test[SEED_ID][1])
    best = max(search, key=lambda c: search[c])
    return RunCandidates(
        run.variant,
        statistics.fmean(p for p, _ in coreset.values()),
        search[best],
        best in held_out,
        held_out.get(best, math.nan),
    )


def candidates_markdown(runs: Sequence[RunCandidates]) -> str:
    """Per strategy, means over its runs (the test area over those that handed it back)."""
    lines = [
        "| strategy | runs | candidates' coreset pass | best area, coreset | best handed back "
        "| its area, test |",
        "|---|---|---|---|---|---|",
    ]
    for variant in dict.fromkeys(r.variant for r in runs):
        mine = [r for r in runs if r.variant == variant]
        test = [r.best_test_area for r in mine if r.best_handed_back]
        lines.append(
            f"| {variant} | {len(mine)} | {statistics.fmean(r.coreset_pass for r in mine):.3f} "
            f"| {statistics.fmean(r.best_coreset_area for r in mine):.3f} "
            f"| {statistics.fmean(r.best_handed_back for r in mine):.3f} "
            f"| {statistics.fmean(test) if test else math.nan:.3f} |"
        )
    return "\n".join(lines)
