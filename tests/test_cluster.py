"""Scheduling on a Ray cluster: in-flight rollouts follow the cluster's slots, `ray.max_in_flight`
caps them, and the embedded Ray never joins a foreign cluster on the machine."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
import ray

from harnesspro.cli import main
from harnesspro.core.config import RunConfig
from harnesspro.core.execution_config import RayConfig
from harnesspro.core.model_config import ModelConfig
from harnesspro.execution.scheduler import Slots, ensure_ray, rollout_cpus
from harnesspro.run.folder import default_run_dir
from tests.conftest import tiny_config

LATENCY = {"first_token_s": [1.0, 1.0], "tokens_per_s": [1000.0, 1000.0]}


def rollout_spans(run_dir: Path) -> list[tuple[float, float]]:
    """(first, last) trajectory timestamp of every rollout of a run."""
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        folders = [f for (f,) in db.execute("SELECT artifacts FROM rollouts")]
    spans = []
    for folder in folders:
        lines = (run_dir / folder / "trajectory.jsonl").read_text().splitlines()
        stamps = [json.loads(line)["ts"] for line in lines if line.strip()]
        spans.append((min(stamps), max(stamps)))
    return spans


def most_at_once(spans: list[tuple[float, float]]) -> int:
    """The largest number of spans that overlap at one instant (a sweep over their ends)."""
    events = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    running = best = 0
    for _, step in events:
        running += step
        best = max(best, running)
    return best


def test_most_at_once_by_hand() -> None:
    assert most_at_once([(0, 2), (1, 3), (2.5, 4), (5, 6)]) == 2
    assert most_at_once([(0, 10), (1, 2), (3, 4), (3.5, 5)]) == 3


def test_rollout_cpus_follow_the_models_kind() -> None:
    def cpus(**model: object) -> float:
        return rollout_cpus(RunConfig(model=ModelConfig.model_validate(model)))

    assert cpus() == 1.0  # the scripted policy answers at once: the rollout is all CPU
    assert cpus(latency={}) == 0.25  # simulated hosted model: mostly waiting
    assert cpus(upstream="openai", base_url="https://api.openai.com/v1") == 0.25
    assert cpus(upstream="openai", base_url="http://127.0.0.1:8000/v1") == 1.0
    assert rollout_cpus(RunConfig(ray=RayConfig(rollout_cpus=0.5))) == 0.5


def test_num_cpus_on_a_cluster_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")  # never contacted: refused before
    config = tiny_config(tmp_path, ray={"num_cpus": 4})
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 2
    assert not run_dir.exists()


@pytest.mark.slow
def test_embedded_ray_ignores_a_foreign_cluster(ray_cluster: Callable[..., object]) -> None:
    """A cluster on the machine whose address file a plain `ray.init()` would find (as after
    `ray start`): the embedded Ray starts on its own, sized by the config."""
    foreign = ray_cluster(1)
    ensure_ray(RayConfig(num_cpus=3))
    assert ray.get_runtime_context().gcs_address != foreign.address  # type: ignore[attr-defined]
    assert ray.cluster_resources()["CPU"] == 3


@pytest.mark.slow
def test_in_flight_follows_the_cluster_and_max_in_flight_caps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ray_cluster: Callable[..., object]
) -> None:
    cluster = ray_cluster(2)  # 2 CPUs at 0.25 per rollout: 8 slots
    monkeypatch.setenv("RAY_ADDRESS", cluster.address)  # type: ignore[attr-defined]
    sections = {
        "model": {"name": "scripted", "upstream": "scripted", "latency": LATENCY},
        "coreset": {"size": 2},
        "evaluation": {"final": False, "validation_rollouts": 0},
    }
    runs = {}
    # The capped run does 4 rollouts (2 waves of 2, a wave being several simulated model calls
    # of a second each), enough to show the cap; the free one 6, all at once.
    for name, ray_section, g in (("free", {}, 3), ("capped", {"max_in_flight": 2}, 2)):
        (tmp_path / name).mkdir()
        evolution = {"epochs": 0, "rollouts_per_task": g}
        config = tiny_config(tmp_path / name, **sections, evolution=evolution, ray=ray_section)
        runs[name] = tmp_path / name / "run"
        assert main(["evolve", "--config", str(config), "--run-dir", str(runs[name])]) == 0
    free, capped = (rollout_spans(runs[n]) for n in ("free", "capped"))
    assert (len(free), len(capped)) == (6, 4)
    former_limit = 2 * 2  # the old rule: 2 x ray.num_cpus (default 2), whatever the cluster
    assert most_at_once(free) > former_limit
    assert most_at_once(capped) == 2


def test_inside_a_ray_job_runs_go_to_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = RunConfig(name="x")
    monkeypatch.delenv("RAY_JOB_CONFIG_JSON_ENV_VAR", raising=False)
    assert default_run_dir(config).parent == Path("runs")
    monkeypatch.setenv("RAY_JOB_CONFIG_JSON_ENV_VAR", '{"runtime_env": {}}')  # as Ray sets it
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_run_dir(config).parent == tmp_path / "harnesspro" / "runs"


def test_slots_follow_the_clusters_cpus_and_the_cap() -> None:
    cpus = [4.0]
    slots = Slots(0.25, None, refresh_s=0, total=lambda: cpus[0])
    assert slots() == 16 + 4  # 4 CPUs / 0.25, plus a quarter queued
    cpus[0] = 8.0  # a node joined
    assert slots() == 32 + 8
    assert Slots(0.25, 6, total=lambda: 4.0)() == 6
    assert Slots(1.0, None, total=lambda: 2.0)() == 2 + 1


def test_faults_halve_the_limit_and_successes_grow_it_back() -> None:
    slots = Slots(0.25, None, total=lambda: 4.0)  # 20 in flight
    slots.fault()
    assert slots() == 10
    slots.fault()
    assert slots() == 5
    for expected in range(6, 20):
        slots.success()
        assert slots() == expected
    slots.success()
    assert slots() == 20
    slots.success()  # back at the cluster's size: no more growth
    assert slots() == 20


def test_an_unreachable_cluster_is_one_sentence_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refused(**_: object) -> None:  # what ray.init raises after its connect timeout
        raise ConnectionError("Failed to connect to Ray cluster at 127.0.0.1:1")

    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refused)
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(tiny_config(tmp_path)), "--run-dir", str(run_dir)]) == 2
    said = capsys.readouterr()
    assert "RAY_ADDRESS=127.0.0.1:1: cannot connect" in said.out + said.err
    assert "Traceback" not in said.out + said.err
    assert not run_dir.exists()
