"""mini-swe-agent's declared knobs act: its text output format solves a task, its cost limit
stops a rollout on the cost the gateway reports, and the default run proposes, edits and
evaluates changes to its knobs (before knobs, every such edit was discarded)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

import harnesspro
from harnesspro.core.ledger import Ledger
from harnesspro.execution.rollout import run_rollout
from harnesspro.improvers.planner.space import parts, space_of
from harnesspro.tasks.loader import folder_files
from harnesspro.tasks.toolenv import ToolEnv
from tests.conftest import builtin_task, evolve_tiny_in, inputs_for
from tests.test_byo_harness import mini_env  # noqa: F401  (the fixture)

MINI = Path(harnesspro.__file__).parent / "harness" / "bundled" / "mini_swe_agent"
pytestmark = pytest.mark.slow


def mini_with(tmp_path: Path, **agent: object) -> dict[str, bytes]:
    harness = tmp_path / "mini"
    shutil.copytree(MINI, harness)
    config = yaml.safe_load((harness / "config.yaml").read_text())
    for key, value in agent.items():
        section, _, leaf = key.partition("__")
        (config.setdefault(section, {}) if leaf else config)[leaf or section] = value
    (harness / "config.yaml").write_text(yaml.safe_dump(config))
    return folder_files(harness)


def test_the_text_output_format_solves_a_task(mini_env: ToolEnv, tmp_path: Path) -> None:  # noqa: F811
    files = mini_with(tmp_path, output_format="text")
    results = [run_rollout(inputs_for(builtin_task("sales_by_region"), a, files)) for a in (0, 1)]
    assert all(r.status == "ok" for r in results), [r.reason + r.detail for r in results]
    assert any(r.official_pass for r in results)
    assert all('"tool_call"' in r.trajectory for r in results)  # commands parsed from fences


def test_the_cost_limit_stops_on_the_gateways_cost(mini_env: ToolEnv, tmp_path: Path) -> None:  # noqa: F811
    files = mini_with(tmp_path, agent__cost_limit=1e-6)
    result = run_rollout(inputs_for(builtin_task("sales_by_region"), 0, files))
    assert result.status == "ok" and result.n_calls == 1, result.reason + result.detail


def test_the_default_run_edits_and_evaluates_mini_swe_agents_knobs(
    mini_env: ToolEnv,  # noqa: F811
    tmp_path: Path,
    ray_session: None,
) -> None:
    evolution = {"strategy": "harnesspro", "epochs": 1, "rollouts_per_task": 1}
    evaluation = {"final": False, "validation_rollouts": 0}
    run_dir = evolve_tiny_in(
        tmp_path, evolution=evolution, evaluation=evaluation, harness={"seed": str(MINI)}
    )
    ledger = Ledger(run_dir / "ledger.sqlite")
    plans, rollouts = ledger.plans(), ledger.rollouts()
    ledger.close()
    first = plans[plans["epoch"] == 1]
    assert len(first) >= 4 and first["child_id"].notna().all(), first["note"].tolist()
    genes = set(space_of(MINI.resolve()).names)
    assert all(parts(m) <= genes for m in first["mechanism"])
    assert any("=" in m for m in first["mechanism"])  # declared knob values, not only recipes
    evaluated = rollouts[rollouts["candidate_id"].isin(first["child_id"])]
    assert set(evaluated["candidate_id"]) == set(first["child_id"])
    assert (evaluated["status"] == "ok").mean() > 0.5
