"""Usage normalisation and cost arithmetic against hand-computed cases and genai-prices."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harnesspro.core.config_base import ConfigError
from harnesspro.core.model_config import Price
from harnesspro.core.records import Usage
from harnesspro.execution.gateway.prices import cost_of, lookup_price
from harnesspro.execution.gateway.usage import normalise_usage
from harnesspro.reports import costs


def test_prompt_tokens_include_cached_ones() -> None:
    usage = normalise_usage(
        {
            "prompt_tokens": 1000,
            "completion_tokens": 200,
            "prompt_tokens_details": {"cached_tokens": 768},
            "completion_tokens_details": {"reasoning_tokens": 50},
        }
    )
    assert usage == Usage(uncached_input=232, cached_input=768, output=200, reasoning=50)


def test_absent_fields_are_zero_not_none() -> None:
    assert normalise_usage({"prompt_tokens": 10, "prompt_tokens_details": None}) == Usage(10)
    assert normalise_usage(None) == Usage()


def test_cost_by_hand() -> None:
    price = Price(input=1.25, cached_input=0.125, output=10.0)
    usage = Usage(uncached_input=232, cached_input=768, output=200)
    # 232 * 1.25 + 768 * 0.125 + 200 * 10 = 290 + 96 + 2000 = 2386 per million
    assert cost_of(usage, price) == pytest.approx(0.002386)


@pytest.mark.parametrize(
    "model, p_in, p_cached, p_out",
    [("gpt-4o", 2.5, 1.25, 10.0), ("gpt-4o-mini", 0.15, 0.075, 0.6)],
)
def test_genai_prices(model: str, p_in: float, p_cached: float, p_out: float) -> None:
    price = lookup_price(model, {})
    assert (price.input, price.cached_input, price.output) == pytest.approx((p_in, p_cached, p_out))
    usage = Usage(uncached_input=1000, cached_input=3000, output=500)
    expected = (1000 * p_in + 3000 * p_cached + 500 * p_out) / 1e6
    assert cost_of(usage, price) == pytest.approx(expected)


def test_override_wins_and_unknown_is_refused() -> None:
    mine = Price(input=1, output=2)
    assert lookup_price("gpt-4o", {"gpt-4o": mine}) is mine
    with pytest.raises(ConfigError, match="prices.totally-unknown-model"):
        lookup_price("totally-unknown-model", {})


def test_a_failed_costs_report_leaves_the_previous_one_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "costs.csv").write_text("account,epoch\ntarget,1\n")
    monkeypatch.setattr(costs, "run_costs", lambda *_: pd.DataFrame({"account": ["target"]}))

    def half_then_fail(self: pd.DataFrame, path: Path, **_: object) -> None:
        Path(path).write_text("acc")  # a crash in the middle of the write
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        costs.write_run_costs(pd.DataFrame(), pd.DataFrame(), folder)
    assert (folder / "costs.csv").read_text() == "account,epoch\ntarget,1\n"
    assert sorted(p.name for p in folder.iterdir()) == ["costs.csv"]  # no temporary left
