"""`harnesspro rollout`: one rollout of a harness on a task folder, for debugging; and the
single rollouts a calibration table is made of."""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path

from harnesspro.core.config import RunConfig, load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.model_config import Price
from harnesspro.core.records import RolloutResult, RolloutSpec, Task
from harnesspro.execution.fakes.behaviour import ProfileError
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.rollout import RolloutInputs, run_rollout, write_tree
from harnesspro.execution.worlds import Profile, resolve_world
from harnesspro.harness.validate import static_problem
from harnesspro.run.context import model_price
from harnesspro.run.local_model import serving
from harnesspro.tasks.loader import folder_files, load_task
from harnesspro.tasks.runtime import bundle_task

FREE = Price(input=0.0, output=0.0)


def run_config(model: str, config: Path | None) -> RunConfig:
    """`scripted` needs nothing; other models come from a run config's model and prices."""
    if config is None:
        if model != "scripted":
            raise ConfigError(f"--model {model} needs --config FILE with its model section.")
        return RunConfig()
    return load_config(config)


@dataclass(frozen=True)
class OneRollout:
    """What single rollouts outside a run share: the config, its price and profile, and the
    local server's URL when the model is served by this process."""

    run: RunConfig
    price: Price | None
    behaviour: Profile
    model_url: str | None = None

    @classmethod
    def of(cls, run: RunConfig, priced: bool = True) -> OneRollout:
        try:
            behaviour = resolve_world(run.model.behaviour)
        except ProfileError as exc:
            raise ConfigError(str(exc)) from None
        return cls(run, model_price(run) if priced else FREE, behaviour)

    def roll(self, harness: Path, task: Task, sampling_seed: str) -> RolloutResult:
        """One rollout of `harness` on `task`, with the config's sandbox, limits and caps; the
        harness folder's name is the candidate's (world v3 without common draws draws afresh
        per candidate)."""
        run = self.run
        return run_rollout(
            RolloutInputs(
                spec=RolloutSpec("debug", harness.name, task.id, 0, 0),
                harness_files=folder_files(harness),
                task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
                task=bundle_task(task),
                script=script_for(task) if run.model.upstream == "scripted" else None,
                model=run.model,
                price=self.price,
                timeout_s=run.sandbox.rollout_timeout_s(task.timeout_s),
                sampling_seed=sampling_seed,
                token=secrets.token_hex(16),
                behaviour=self.behaviour,
                sandbox=run.sandbox.backend,
                memory_mb=run.sandbox.memory_mb,
                budget=run.gateway.rollout_budget,
                retry=run.gateway.retry_policy(),
                model_url=self.model_url,
            )
        )


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
    one = OneRollout.of(run_config(model, config), priced=config is not None)
    with serving(one.run, out) as url:
        result = OneRollout(one.run, one.price, one.behaviour, url).roll(
            harness, task, secrets.token_hex(4)
        )
    write_artifacts(result, out)
    return result


def write_artifacts(result: RolloutResult, out: Path) -> None:
    """The rollout's workspace, logs and a summary under `out`."""
    write_tree(out / "workspace", result.workspace)
    (out / "trajectory.jsonl").write_text(result.trajectory)
    (out / "gateway.jsonl").write_text(result.gateway_log)
    (out / "stderr.txt").write_text(result.detail)
    if result.verifier is not None:
        (out / "verifier.json").write_text(json.dumps(asdict(result.verifier), indent=2) + "\n")
    (out / "summary.json").write_text(json.dumps(summary(result), indent=2) + "\n")


def summary(result: RolloutResult) -> dict[str, object]:
    """The rollout's outcome, usage and cost as plain data."""
    return {
        "status": result.status,
        "reason": result.reason,
        "official_pass": result.official_pass,
        "verifier_reason": result.verifier.reason if result.verifier else None,
        "model_calls": result.n_calls,
        "usage": None if result.usage is None else result.usage.__dict__,
        "cost": result.cost,
        "latency_s": round(result.latency_s, 3),
    }
