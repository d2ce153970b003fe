"""Validation of a candidate harness before it gets rollouts: manifest, immutable paths,
code that compiles, and a smoke rollout on a trivial task that must complete."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

from harnesspro.core import yamlio
from harnesspro.core.knobs import KnobError, load_knobs
from harnesspro.core.model_config import ModelConfig, Price
from harnesspro.core.records import RolloutResult, RolloutSpec
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.harness_entry import requirements_problem
from harnesspro.execution.rollout import RolloutInputs, run_rollout
from harnesspro.harness.smoke_memo import remembered, smoke_key
from harnesspro.tasks.loader import folder_files, load_task
from harnesspro.tasks.runtime import bundle_task

SMOKE_TASK = Path(__file__).parent / "smoke"
SMOKE_PRICE = Price(input=0.0, output=0.0)


def static_problem(candidate: Path, seed: Path | None) -> str:
    """'' when the manifest (its [[knob]] tables included), immutable paths, config and code
    are fine, else the reason."""
    manifest = candidate / "harness.toml"
    if not manifest.is_file():
        return "harness.toml is missing"
    try:
        spec = tomllib.loads(manifest.read_text())["harness"]
        command, immutable = spec["command"], spec.get("immutable", [])
    except (tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
        return f"harness.toml has no [harness] command ({exc.__class__.__name__})"
    if not isinstance(command, list) or not command:
        return "harness.toml: [harness] command must be a non-empty list"
    problem = requirements_problem(spec.get("requirements", []))
    if problem:
        return problem
    try:
        load_knobs(candidate)
    except KnobError as exc:
        return str(exc).replace(f"{candidate}/", "")
    for rel in immutable if seed is not None else []:
        mine, theirs = candidate / rel, seed / rel
        if not mine.is_file() or mine.read_bytes() != theirs.read_bytes():
            return f"immutable path {rel} differs from the seed"
    config = candidate / "harness.yaml"
    if config.is_file():
        try:
            if not isinstance(yamlio.load(config.read_text()), dict):
                return "harness.yaml is not a mapping"
        except yaml.YAMLError as exc:
            return f"harness.yaml does not parse: {str(exc).splitlines()[0]}"
    for source in sorted(candidate.rglob("*.py")):
        try:
            compile(source.read_bytes(), str(source), "exec")
        except (SyntaxError, ValueError) as exc:
            return f"{source.relative_to(candidate)} does not compile: {exc}"
    return ""


def smoke_rollout(
    candidate: Path, sandbox: str = "bubblewrap", task_dir: Path = SMOKE_TASK
) -> RolloutResult:
    """One rollout of the candidate on a smoke task (the trivial one unless `task_dir` names
    another), on the scripted policy; remembered by the harness's files (`smoke_memo.py`)."""
    task = load_task(task_dir)
    files = folder_files(candidate)
    bundle = bundle_task(task)
    inputs = RolloutInputs(
        spec=RolloutSpec("smoke", "smoke", task.id, 0, 0),
        harness_files=files,
        task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
        task=bundle,
        script=script_for(task),
        model=ModelConfig(),
        price=SMOKE_PRICE,
        timeout_s=60.0,
        sampling_seed="smoke",
        token="smoke-rollout-token",
        sandbox=sandbox,
    )
    return remembered(smoke_key(files, sandbox, bundle.digest), lambda: run_rollout(inputs))


def validate_harness(
    candidate: Path, seed: Path | None, smoke: bool = True, sandbox: str = "bubblewrap"
) -> str:
    """'' when the candidate may get rollouts, else the validator's one-line message."""
    return checked(candidate, seed, smoke, sandbox)[0]


def checked(
    candidate: Path, seed: Path | None, smoke: bool = True, sandbox: str = "bubblewrap"
) -> tuple[str, RolloutResult | None]:
    """The validator's message ('' = fine) and the smoke rollout (in the `sandbox` backend)
    when one ran."""
    problem = static_problem(candidate, seed)
    if problem or not smoke:
        return problem, None
    result = smoke_rollout(candidate, sandbox)
    if result.status != "ok":
        return f"smoke rollout ended {result.status}: {result.reason}", result
    return "", result
