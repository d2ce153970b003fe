"""`harnesspro rollout`: one rollout of a harness on a task folder, for debugging."""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict
from pathlib import Path

from harnesspro.core.config import load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.model_config import ModelConfig, Price
from harnesspro.core.records import RolloutResult, RolloutSpec
from harnesspro.execution.fakes.behaviour import ProfileError
from harnesspro.execution.fakes.sampling import resolve_profile
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.rollout import RolloutInputs, run_rollout, write_tree
from harnesspro.harness.validate import static_problem
from harnesspro.run.context import model_price
from harnesspro.tasks.loader import folder_files, load_task
from harnesspro.tasks.runtime import bundle_task

FREE = Price(input=0.0, output=0.0)


def model_settings(model: str, config: Path | None) -> tuple[ModelConfig, Price | None]:
    """`scripted` needs nothing; other models come from a run config's model/prices."""
    if config is None:
        if model != "scripted":
            raise ConfigError(f"--model {model} needs --config FILE with its model section.")
        return ModelConfig(), FREE
    run = load_config(config)
    return run.model, model_price(run)


def debug_rollout(
    harness: Path, task_dir: Path, model: str, config: Path | None, out: Path
) -> RolloutResult:
    """Run one rollout and write its artifacts and a summary to `out`."""
    if not harness.is_dir():
        raise ConfigError(f"{harness}: not a harness directory; pass the folder with harness.toml.")
    problem = static_problem(harness, None)
    if problem:
        raise ConfigError(f"{harness}: {problem}.")
    task = load_task(task_dir)
    settings, price = model_settings(model, config)
    try:
        behaviour = resolve_profile(settings.behaviour.seed, settings.behaviour.profile)
    except ProfileError as exc:
        raise ConfigError(str(exc)) from None
    result = run_rollout(
        RolloutInputs(
            spec=RolloutSpec("debug", "debug", task.id, 0, 0),
            harness_files=folder_files(harness),
            task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
            task=bundle_task(task),
            script=script_for(task) if settings.upstream == "scripted" else None,
            model=settings,
            price=price,
            timeout_s=task.timeout_s,
            sampling_seed=secrets.token_hex(4),
            token=secrets.token_hex(16),
            behaviour=behaviour,
        )
    )
    write_tree(out / "workspace", result.workspace)
    (out / "trajectory.jsonl").write_text(result.trajectory)
    (out / "gateway.jsonl").write_text(result.gateway_log)
    (out / "stderr.txt").write_text(result.detail)
    if result.verifier is not None:
        (out / "verifier.json").write_text(json.dumps(asdict(result.verifier), indent=2) + "\n")
    summary = {
        "status": result.status,
        "reason": result.reason,
        "official_pass": result.official_pass,
        "verifier_reason": result.verifier.reason if result.verifier else None,
        "model_calls": result.n_calls,
        "usage": None if result.usage is None else result.usage.__dict__,
        "cost": result.cost,
        "latency_s": round(result.latency_s, 3),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return result
