"""Prices per model: config overrides first, then the genai-prices table."""

from __future__ import annotations

from collections.abc import Mapping

from harnesspro.core.config_base import ConfigError
from harnesspro.core.model_config import Price
from harnesspro.core.records import Usage

MILLION = 1_000_000


def lookup_price(model: str, overrides: Mapping[str, Price]) -> Price:
    """The price of `model`, or ConfigError naming the `prices` key to add."""
    if model in overrides:
        return overrides[model]
    from genai_prices import Usage as GpUsage
    from genai_prices import calc_price

    try:
        # Price one million tokens of each part to read the per-MTok rates back.
        def rate(**parts: int) -> float:
            return float(calc_price(GpUsage(**parts), model_ref=model).total_price)

        return Price(
            input=rate(input_tokens=MILLION),
            cached_input=rate(input_tokens=MILLION, cache_read_tokens=MILLION),
            cache_write=rate(input_tokens=MILLION, cache_write_tokens=MILLION),
            output=rate(output_tokens=MILLION),
        )
    except LookupError:
        raise ConfigError(
            f"model '{model}' has no known price; add it under `prices.{model}` in the config."
        ) from None


def cost_of(usage: Usage, price: Price) -> float:
    """Dollars for one call; reasoning tokens are already inside output tokens."""
    return (
        usage.uncached_input * price.input
        + usage.cached_input * price.cached_input
        + usage.cache_write * price.cache_write
        + usage.output * price.output
    ) / MILLION
