"""Printing dollars and shares: an unknown value (an unpriced model) prints as unknown, never
as 0 or nan."""

from __future__ import annotations

import math


def dollars(value: float | None, digits: int = 4) -> str:
    """`$0.0123`, or `unknown $` when the cost is unknown."""
    if value is None or math.isnan(value):
        return "unknown $"
    return f"${value:.{digits}f}"


def relative(change: float | None) -> str:
    """`+12.5%`, or `unknown` when the change is of an unknown cost."""
    if change is None or math.isnan(change):
        return "unknown"
    return f"{change:+.1%}"


def share(value: float | None) -> str:
    """`0.40`, or `unknown` (e.g. P(non-dominated) when costs are unknown)."""
    return "unknown" if value is None or math.isnan(value) else f"{value:.2f}"


def tokens(value: float | None) -> str:
    """`12,345 tokens`, or `unknown tokens` when the provider reported no usage."""
    if value is None or math.isnan(value):
        return "unknown tokens"
    return f"{value:,.0f} tokens"
