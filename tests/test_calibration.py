"""`harnesspro calibrate`'s table: variants built from the seed, rows appended as they finish,
an interrupted table resumed without repeating a row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harnesspro.bench.calibration import (
    Plan,
    Variant,
    build_variant,
    done_keys,
    load_plan,
    run_table,
)
from harnesspro.bench.calibration_report import report
from harnesspro.core.config_base import ConfigError
from harnesspro.run.context import seed_template


def plan_of(**fields: Any) -> Plan:
    return Plan.model_validate({"suite": "easy", "tasks": ["a", "b"], "attempts": 2, **fields})


def test_a_variant_is_the_seed_plus_base_mechanisms_overlay_and_keys(tmp_path: Path) -> None:
    overlay = tmp_path / "change"
    (overlay / "prompts").mkdir(parents=True)
    (overlay / "prompts" / "system.md").write_text("short prompt\n")
    plan = plan_of(base=["fenced_tools"], variants=[])
    variant = Variant(
        name="v", mechanisms=["step_cap"], overlay="change",
        set={"request.max_tokens": 384, "hooks.on_submit": [{"use": "m:f"}]},
    )  # fmt: skip
    built = build_variant(seed_template(), plan, variant, tmp_path, tmp_path / "out")
    config = yaml.safe_load((built / "harness.yaml").read_text())
    seed = yaml.safe_load((seed_template() / "harness.yaml").read_text())
    assert config["tool_mode"] == "fenced" != seed["tool_mode"]  # the base's mechanism
    assert config["max_steps"] < seed["max_steps"]  # step_cap
    assert config["request"] == {"max_tokens": 384}
    assert config["hooks"]["on_submit"] == [{"use": "m:f"}]
    assert config["hooks"]["on_step"] == seed["hooks"]["on_step"]  # siblings kept
    assert (built / "prompts" / "system.md").read_text() == "short prompt\n"
    as_shipped = build_variant(
        seed_template(), plan, Variant(name="s", seed=True), tmp_path, tmp_path / "out"
    )
    assert yaml.safe_load((as_shipped / "harness.yaml").read_text()) == seed


def test_an_unknown_mechanism_in_a_plan_is_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text("suite: easy\ntasks: [a]\nvariants: [{name: v, mechanisms: [nope]}]\n")
    with pytest.raises(ConfigError, match="variant v: unknown mechanism nope"):
        load_plan(path)


def test_the_table_runs_attempt_by_attempt_and_resumes(tmp_path: Path) -> None:
    plan = plan_of(variants=[{"name": "x"}, {"name": "y", "kind": "single"}], parallel=1)
    harnesses = {"x": tmp_path / "x", "y": tmp_path / "y"}
    for folder in harnesses.values():
        folder.mkdir()
        (folder / "harness.toml").write_text(f"# {folder.name}\n")
    table = tmp_path / "table.jsonl"
    seen: list[tuple[str, str, int]] = []

    def run(harness: Path, task: str, attempt: int) -> dict[str, Any]:
        seen.append((harness.name, task, attempt))
        return {"official_pass": task == "a"}

    assert run_table(plan, harnesses, table, run) == 8
    expected = [(v, t, a) for a in (0, 1) for v in ("x", "y") for t in ("a", "b")]
    assert seen == expected
    rows = [json.loads(line) for line in table.read_text().splitlines()]
    assert [(r["variant"], r["task"], r["attempt"]) for r in rows] == expected
    assert rows[4]["kind"] == "catalog" and rows[2]["kind"] == "single"
    # A crash cut the last line short: that row is run again, no other.
    lines = table.read_text().splitlines()
    table.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:10])
    seen.clear()
    assert run_table(plan, harnesses, table, run) == 1
    assert seen == [("y", "b", 1)]
    assert len(done_keys(table)) == 8
    # A variant whose files changed is not resumed into the old rows.
    (harnesses["y"] / "harness.toml").write_text("# changed\n")
    with pytest.raises(ConfigError, match="variant y is built from other files"):
        run_table(plan, harnesses, table, run)


def test_the_report_by_hand() -> None:
    """Two tasks x 2 attempts. Base: t1 passes once, t2 never (t1 flips). m1: t1 twice, t2
    once (+0.5 on each task). m2: like the base (0 on each). m1+m2: t1 twice, t2 twice (+0.5,
    +1.0), so its interaction against m1 + m2 is 0 on t1 and +0.5 on t2. Tokens: 100 a
    rollout for the base, 150 for m1 (+50%)."""
    plan = plan_of(
        variants=[
            {"name": "base", "kind": "base"},
            {"name": "m1", "kind": "single", "mechanisms": ["step_cap"]},
            {"name": "m2", "kind": "single", "mechanisms": ["concise_prompt"]},
            {"name": "both", "kind": "pair", "mechanisms": ["step_cap", "concise_prompt"]},
        ]
    )
    passes = {
        "base": {"t1": [True, False], "t2": [False, False]},
        "m1": {"t1": [True, True], "t2": [True, False]},
        "m2": {"t1": [False, True], "t2": [False, False]},
        "both": {"t1": [True, True], "t2": [True, True]},
    }
    tokens = {"base": 100, "m1": 150, "m2": 100, "both": 100}
    rows = [
        {"variant": v, "task": t, "attempt": a, "official_pass": p, "status": "ok",
         "input_tokens": tokens[v] - 10, "output_tokens": 10}
        for v, by_task in passes.items() for t, ps in by_task.items() for a, p in enumerate(ps)
    ]  # fmt: skip
    rows.append({"variant": "m1", "task": "t2", "attempt": 2, "official_pass": None,
                 "status": "infra_error"})  # fmt: skip  # never a failure
    by_name = {r.name: r for r in report(plan, rows)}
    base, m1, m2, both = (by_name[n] for n in ("base", "m1", "m2", "both"))
    assert base.pass_effect is None and base.flip_share == 0.5 and base.rollouts == 4
    assert m1.rollouts == 4 and m1.pass_rate == 0.75
    assert m1.pass_effect is not None and m1.pass_effect.mean == pytest.approx(0.5)
    assert (m1.pass_effect.low, m1.pass_effect.high) == (pytest.approx(0.5), pytest.approx(0.5))
    assert m1.token_effect is not None and m1.token_effect.mean == pytest.approx(0.5)
    assert m1.task_spread == 0.0 and m1.flip_share == 0.5
    assert m2.pass_effect is not None and m2.pass_effect.mean == pytest.approx(0.0)
    assert both.interaction is not None and both.interaction.mean == pytest.approx(0.25)
    assert both.interaction.low == pytest.approx(0.0) and both.interaction.high == pytest.approx(
        0.5
    )
    assert m1.interaction is None


def test_report_refuses_a_config_it_would_ignore(tmp_path: Path) -> None:
    from harnesspro.cli import main

    plan = Path(__file__).resolve().parents[1] / "docs/calibration/screen.yaml"
    argv = ["calibrate", str(plan), "--out", str(tmp_path / "t.jsonl"), "--report"]
    assert main([*argv, "--config", "configs/quickstart.yaml"]) == 2
    assert main(argv) == 0


def test_an_infrastructure_fault_is_run_again_on_resume(tmp_path: Path) -> None:
    plan = plan_of(variants=[{"name": "x"}], parallel=1)
    harness = tmp_path / "x"
    harness.mkdir()
    table = tmp_path / "table.jsonl"
    faults = {("a", 1)}

    def run(folder: Path, task: str, attempt: int) -> dict[str, Any]:
        if (task, attempt) in faults:
            return {"status": "infra_error", "official_pass": None}
        return {"status": "ok", "official_pass": True}

    assert run_table(plan, {"x": harness}, table, run) == 4
    assert len(done_keys(table)) == 3  # the fault is not a measured row
    faults.clear()
    assert run_table(plan, {"x": harness}, table, run) == 1
    assert len(done_keys(table)) == 4
