"""Selecting world v3 in the config: v2 stays the default; a v3 knob under v2 is one clear
error; `model.behaviour.seed` draws a v3 profile; a rollout runs end to end on it, and with
common draws off two candidates of the same tree draw apart."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from harnesspro.core.config import load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.model_config import BehaviourConfig
from harnesspro.core.records import RolloutSpec
from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE
from harnesspro.execution.rollout import make_upstream, run_rollout
from harnesspro.execution.world.draw import draw_profile
from harnesspro.execution.world.profile import WorldProfile
from harnesspro.execution.worlds import resolve_world
from harnesspro.run.context import seed_template
from harnesspro.tasks.loader import folder_files
from tests.conftest import builtin_task, inputs_for, tiny_config


def config_with(tmp_path: Path, world: dict[str, object], **behaviour: object) -> Path:
    path = tiny_config(tmp_path)
    data = yaml.safe_load(path.read_text())
    data["model"]["behaviour"] = {**behaviour, "world": world}
    path.write_text(yaml.safe_dump(data))
    return path


def test_v2_is_the_default_world() -> None:
    assert BehaviourConfig().world.version == "v2"
    assert resolve_world(BehaviourConfig()) == DEFAULT_PROFILE
    assert not BehaviourConfig().configured  # v2's rollout keys stay as they were


def test_a_v3_knob_under_v2_is_one_sentence_naming_key_and_fix(tmp_path: Path) -> None:
    path = config_with(tmp_path, {"common_draws": False})
    with pytest.raises(ConfigError, match=r"world\.common_draws acts on world v3 only: remove "
                       r"it or set world\.version: v3"):  # fmt: skip
        load_config(path)


def test_the_seed_draws_a_v3_profile_with_the_config_knobs(tmp_path: Path) -> None:
    knobs = {"version": "v3", "common_draws": False, "null_share": 0.5, "interaction": 1.0}
    config = load_config(config_with(tmp_path, knobs, seed=7))
    profile = resolve_world(config.model.behaviour)
    assert profile == draw_profile(7, common_draws=False, null_share=0.5, interaction=1.0)
    assert config.model.behaviour.configured


def test_a_v3_profile_file_takes_the_config_knobs_on_top(tmp_path: Path) -> None:
    file = tmp_path / "p.yaml"
    file.write_text(yaml.safe_dump({"idle": 0.4, "hidden_factors": True}))
    config = load_config(config_with(tmp_path, {"version": "v3", "hidden_factors": False},
                                     profile=str(file)))  # fmt: skip
    profile = resolve_world(config.model.behaviour)
    assert isinstance(profile, WorldProfile)
    assert (profile.idle, profile.hidden_factors) == (0.4, False)


def test_common_draws_off_reaches_the_rollout_upstream() -> None:
    task = builtin_task("sales_by_region")
    base = inputs_for(task, 0, {})
    request = {"messages": [{"role": "user", "content": task.instruction}], "tools": [{}]}

    def replies(profile: WorldProfile, candidate: str) -> list[object]:
        spec = RolloutSpec("same-key", candidate, task.id, 0, 0)
        inputs = dataclasses.replace(base, behaviour=profile, spec=spec)
        upstream = make_upstream(inputs)
        out = []
        for seed in range(12):
            message = upstream.complete(request, f"s{seed}")["choices"][0]["message"]
            out.append(message.get("tool_calls", [{}])[0].get("function"))
        return out

    shared = draw_profile(1)
    assert replies(shared, "c1") == replies(shared, "c2")
    fresh = draw_profile(1, common_draws=False)
    assert replies(fresh, "c1") != replies(fresh, "c2")


def test_a_seed_rollout_runs_end_to_end_on_world_v3() -> None:
    inputs = inputs_for(builtin_task("sales_by_region"), 0, folder_files(seed_template()))
    result = run_rollout(dataclasses.replace(inputs, behaviour=draw_profile(2)))
    assert result.status == "ok", result.reason
    assert result.usage.output > 0
