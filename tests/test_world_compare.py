"""The side-by-side figures of calibration tables, against a table worked by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from harnesspro.bench.calibration import Plan, Variant
from harnesspro.bench.world_compare import figures, side_by_side, world_range

PLAN = Plan(suite="easy", tasks=["t1", "t2"], attempts=2, variants=[
    Variant(name="base", kind="base"),
    Variant(name="a", mechanisms=["a"], kind="single"),
    Variant(name="b", mechanisms=["b"], kind="single"),
    Variant(name="a+b", mechanisms=["a", "b"], kind="pair"),
    Variant(name="f", kind="free-form"),
])  # fmt: skip

# variant -> (t1's two attempts, t2's two attempts); tokens per rollout.
VERDICTS = {
    "base": ((1, 0), (0, 0)),
    "a": ((1, 1), (1, 0)),
    "b": ((0, 0), (0, 0)),
    "a+b": ((1, 1), (0, 0)),
    "f": ((1, 0), (0, 0)),
}
TOKENS = {"a": 150}


def _table() -> list[dict[str, Any]]:
    rows = []
    for variant, by_task in VERDICTS.items():
        for task, verdicts in zip(("t1", "t2"), by_task, strict=True):
            for attempt, passed in enumerate(verdicts):
                rows.append({"variant": variant, "task": task, "attempt": attempt,
                             "status": "ok", "official_pass": bool(passed),
                             "input_tokens": TOKENS.get(variant, 100) - 20,
                             "output_tokens": 20})  # fmt: skip
    return rows


def test_the_figures_of_a_table_worked_by_hand() -> None:
    f = figures(PLAN, _table())
    # base: t1 passes 1 of 2, t2 0 of 2. a: +0.5 on both tasks; b: -0.5 on t1, 0 on t2.
    assert f["base pass rate"] == 0.25
    assert f["single pass effect, lowest"] == -0.25
    assert f["single pass effect, median"] == 0.125
    assert f["single pass effect, highest"] == 0.5
    assert (f["single token effect, lowest"], f["single token effect, highest"]) == (0.0, 0.5)
    # flips: base t1, a t2, f t1 -> 0.5, 0.5, 0, 0, 0.5 over five variants
    assert math.isclose(f["flip share (mean over variants)"], 0.3)
    # one pair only: no spread to speak of
    assert math.isnan(f["interaction SD (pairs and stacks)"])
    # a acts on every resample (+0.5 on both tasks); b's interval reaches 0; f is all zeros
    assert f["singles that measure an effect"] == 0.5
    assert f["free-form changes that measure an effect"] == 0.0
    assert not math.isnan(f["additive fit gain (nats a rollout)"])  # singles -> the pair


def test_a_world_range_is_the_5_to_95_percent_span_of_its_profiles() -> None:
    r = world_range([0.0, float("nan"), 10.0])
    assert (r.low, r.high, r.profiles) == (0.5, 9.5, 2)
    assert r.holds(5.0) is True and r.holds(9.6) is False and r.holds(float("nan")) is None
    assert world_range([float("nan")]).holds(1.0) is None


def test_a_table_sits_inside_a_world_made_of_itself() -> None:
    table = _table()
    rows = side_by_side(PLAN, table, {"same": [table, table]})
    for r in rows:
        assert r.worlds["same"].holds(r.real) in (True, None), r.figure


def test_compare_prints_the_side_by_side_and_refuses_what_it_would_ignore(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harnesspro.cli import main

    plan = Path(__file__).resolve().parents[1] / "docs/calibration/table.yaml"
    real, world = tmp_path / "real.jsonl", tmp_path / "w-1.jsonl"
    lines = "".join(json.dumps(r) + "\n" for r in _table())
    real.write_text(lines)
    world.write_text(lines)
    argv = ["calibrate", str(plan), "--out", str(real)]
    assert main([*argv, "--report", "--compare", f"w={tmp_path}/w-*.jsonl"]) == 0
    assert "w 5-95%" in capsys.readouterr().out
    assert main([*argv, "--compare", f"w={world}"]) == 2  # without --report
    assert main([*argv, "--report", "--compare", f"w={tmp_path}/none-*.jsonl"]) == 2
    assert main([*argv, "--report", "--compare", str(world)]) == 2  # no WORLD=


def test_a_world_is_read_on_the_real_table_s_cells() -> None:
    table = _table()
    first_attempts = [r for r in table if r["attempt"] == 0]
    # the world ran both attempts; the real table has only the first: the world's flip share
    # is then that of a one-attempt table (no repeated task: no figure)
    rows = {r.figure: r for r in side_by_side(PLAN, first_attempts, {"w": [table]})}
    assert rows["flip share (mean over variants)"].worlds["w"].profiles == 0
    assert rows["base pass rate"].worlds["w"].low == 0.5  # base t1 attempt 0 passed, t2 not
