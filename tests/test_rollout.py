"""One real rollout: seed harness in bubblewrap, behind the gateway, on the scripted policy."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from harnesspro.execution.rollout import run_rollout
from harnesspro.run.context import seed_template
from harnesspro.tasks.loader import folder_files
from tests.conftest import builtin_task, inputs_for


def test_seed_rollout_end_to_end() -> None:
    result = run_rollout(
        inputs_for(builtin_task("sales_by_region"), 0, folder_files(seed_template()))
    )
    assert result.status == "ok", result.detail
    events = [json.loads(line) for line in result.trajectory.splitlines()]
    assert {"model_call", "tool_call", "tool_result", "submit"} <= {e["type"] for e in events}
    calls = [json.loads(line) for line in result.gateway_log.splitlines()]
    assert len(calls) == result.n_calls == sum(e["type"] == "model_call" for e in events)
    # The rollout's usage is exactly the sum of what the gateway metered.
    assert result.usage.output == sum(c["output"] for c in calls)
    assert result.usage.cached_input == sum(c["cached_input"] for c in calls) > 0
    assert abs(result.cost - sum(c["cost"] for c in calls)) < 1e-12
    assert result.official_pass is not None
    assert (
        "token-0-0123456789abcdef" not in result.gateway_log
    )  # the per-rollout token is never logged whole


def test_broken_harness_is_a_harness_error_not_a_crash() -> None:
    harness = folder_files(seed_template())
    harness["agent/__main__.py"] = b"raise SystemExit(3)\n"
    result = run_rollout(inputs_for(builtin_task("sales_by_region"), 1, harness))
    assert result.status == "harness_error"
    assert result.n_calls == 0
    assert result.official_pass is False


def test_a_long_temporary_folder_does_not_break_the_gateway_socket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Unix socket's path holds 107 bytes; this temporary folder alone is longer.
    long_tmp = tmp_path / ("t" * 110)
    long_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long_tmp))
    result = run_rollout(
        inputs_for(builtin_task("sales_by_region"), 0, folder_files(seed_template()))
    )
    assert result.status == "ok", result.reason
    assert result.n_calls > 0
    assert list(long_tmp.iterdir()) == []  # the rollout's folders are gone
