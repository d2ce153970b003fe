"""A seed-harness rollout through the gateway to a real OpenAI-compatible server:
llama-cpp-python's server with the tiny Gemma 3 270M GGUF from PyPI. The model is far too
weak to solve anything; this checks the plumbing and that usage is recorded exactly."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from harnesspro.core.model_config import ModelConfig, Price
from harnesspro.core.records import RolloutSpec
from harnesspro.execution.gateway.openai_upstream import OpenAIUpstream
from harnesspro.execution.rollout import RolloutInputs, run_rollout
from harnesspro.harness.validate import SMOKE_TASK
from harnesspro.run.context import seed_template
from harnesspro.tasks.loader import folder_files, load_task
from harnesspro.tasks.runtime import bundle_task

pytestmark = pytest.mark.slow


class Recording(OpenAIUpstream):
    """The real upstream, keeping the raw responses so the test can compare."""

    def __init__(self, base_url: str) -> None:
        super().__init__(base_url, "no-key-needed")
        self.responses: list[dict[str, Any]] = []

    def complete(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        response = super().complete(request, sampling_seed)
        self.responses.append(response)
        return response


def test_seed_rollout_records_exactly_the_servers_usage(llama_server: str, tmp_path: Path) -> None:
    harness = tmp_path / "seed"
    shutil.copytree(seed_template(), harness)
    config = yaml.safe_load((harness / "harness.yaml").read_text())
    config.update(max_steps=3, request={"max_tokens": 32})  # keep a weak model's rambling short
    (harness / "harness.yaml").write_text(yaml.safe_dump(config))
    task = load_task(SMOKE_TASK)
    upstream = Recording(llama_server)
    result = run_rollout(
        RolloutInputs(
            spec=RolloutSpec("real", "seed", task.id, 0, 0),
            harness_files=folder_files(harness),
            task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
            task=bundle_task(task),
            script=None,
            model=ModelConfig(name="gemma-3-270m", upstream="openai", base_url=llama_server),
            price=Price(input=0.1, output=0.2),
            timeout_s=300,
            sampling_seed="real",
            token="real-endpoint-token-0123",
        ),
        upstream,
    )
    assert result.status == "ok", result.reason + result.detail
    assert result.n_calls == len(upstream.responses) >= 1
    prompt = sum(r["usage"]["prompt_tokens"] for r in upstream.responses)
    completion = sum(r["usage"]["completion_tokens"] for r in upstream.responses)
    assert result.usage.uncached_input + result.usage.cached_input == prompt
    assert result.usage.output == completion
    assert result.usage.cached_input == 0  # llama.cpp reports no cached_tokens
    assert result.cost == pytest.approx((prompt * 0.1 + completion * 0.2) / 1e6)
