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
