"""`harnesspro calibrate`: a calibration table of harness variants on one model (the real
local model, or the scripted world for comparison), resumable, one JSON line per rollout."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from harnesspro.bench.calibration import build_variant, load_plan, run_table
from harnesspro.cli.handlers import Handler
from harnesspro.cli.rollout import OneRollout
from harnesspro.core.config import load_config
from harnesspro.core.records import RolloutResult, Task
from harnesspro.run.context import seed_template
from harnesspro.run.local_model import serving
from harnesspro.tasks.loader import load_task, suite_dir


def register(sub: argparse._SubParsersAction) -> dict[str, Handler]:
    """Add `calibrate`."""
    calibrate = sub.add_parser("calibrate", help="a calibration table of harness variants")
    calibrate.add_argument("plan", type=Path, help="the plan (YAML): variants, tasks, attempts")
    calibrate.add_argument("--config", required=True, type=Path, help="the model's run config")
    calibrate.add_argument("--out", required=True, type=Path, help="the table (JSONL), resumed")
    calibrate.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE")
    return {"calibrate": cmd_calibrate}


def row(result: RolloutResult) -> dict[str, Any]:
    """A table row's measured fields."""
    events = [json.loads(line) for line in result.trajectory.splitlines() if line.strip()]
    usage = result.usage
    return {
        "status": result.status,
        "reason": result.reason[:200],
        "official_pass": result.official_pass,
        "calls": result.n_calls,
        "tool_calls": sum(e.get("type") == "tool_call" for e in events),
        "submitted": any(e.get("type") == "submit" for e in events),
        "input_tokens": None if usage is None else usage.uncached_input + usage.cached_input,
        "output_tokens": None if usage is None else usage.output,
        "cost": result.cost,
        "seconds": round(result.latency_s, 1),
    }


def cmd_calibrate(args: argparse.Namespace, console: Console) -> int:
    plan = load_plan(args.plan)
    one = OneRollout.of(load_config(args.config, args.set))
    suite = suite_dir(plan.suite)
    tasks: dict[str, Task] = {t: load_task(suite / t) for t in plan.tasks}
    work = args.out.with_name(args.out.stem + "-work")
    seed = one.run.harness.seed or seed_template()
    harnesses = {
        v.name: build_variant(seed, plan, v, args.plan.parent, work / "harnesses")
        for v in plan.variants
    }
    trajectories = args.out.with_name(args.out.stem + "-trajectories")

    with serving(one.run, work) as url:
        live = dataclasses.replace(one, model_url=url)

        def run_row(harness: Path, task: str, attempt: int) -> dict[str, Any]:
            result = live.roll(harness, tasks[task], f"{one.run.seed}:{task}:{attempt}")
            kept = trajectories / harness.name / f"{task}-{attempt}.jsonl"
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_text(result.chat_log or result.trajectory)
            return row(result)

        written = run_table(plan, harnesses, args.out, run_row)
    console.print(f"{written} rollouts written to {args.out}", markup=False)
    return 0
