"""A finding's impact, measured on the trajectories that show it against those that do not."""

from __future__ import annotations

import math
from collections.abc import Sequence

from harnesspro.core.records import Trace


def _size(trace: Trace) -> float:
    parts = (trace.output_tokens, trace.uncached_input, trace.cached_input)
    return float(sum(p for p in parts if p is not None)) if None not in parts else math.nan


def impact(group: Sequence[Trace], flagged: set[str]) -> tuple[float, float]:
    """A finding's measured impact within one task's G rollouts: the pass rate of the rollouts
    showing it minus that of those without, and their relative size (billed tokens, else model
    calls) minus 1. (0, 0) when every rollout or none shows it: nothing to contrast."""
    shows = [t for t in group if t.key in flagged]
    lacks = [t for t in group if t.key not in flagged]
    if not shows or not lacks:
        return 0.0, 0.0
    d_pass = sum(t.passed for t in shows) / len(shows) - sum(t.passed for t in lacks) / len(lacks)
    sizes = [_size(t) for t in group]
    use_calls = any(math.isnan(x) for x in sizes)
    size = {t.key: float(t.n_calls) if use_calls else _size(t) for t in group}
    base = sum(size[t.key] for t in lacks) / len(lacks)
    mine = sum(size[t.key] for t in shows) / len(shows)
    # at most +500%: the range a diagnosis record admits (analyzer/llm.py)
    return d_pass, (min(5.0, mine / base - 1) if base > 0 else 0.0)
