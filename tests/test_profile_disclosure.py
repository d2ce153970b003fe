"""A behaviour profile is trusted-side data, like the test split: canaries planted in a
profile file (its name, description and two odd parameter values) never reach an improver's
inputs, prompts or search logs, a trajectory, the run folder, or anything a harness in the
sandbox can read or ask the gateway for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from harnesspro.cli import main
from harnesspro.core.config import load_config
from harnesspro.core.records import RolloutSpec
from harnesspro.execution.fakes.behaviour import load_profile
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.rollout import RolloutInputs, run_rollout
from harnesspro.run.context import RunContext
from harnesspro.run.disclosure import improver_inputs
from harnesspro.run.folder import RunFolder
from harnesspro.tasks.loader import load_suite
from harnesspro.tasks.runtime import bundle_task
from tests.conftest import SCRIPTED_PRICE, tiny_config

CANARIES = ("CANARY-PROFILE-NAME-7f3a", "CANARY-PROFILE-DESCRIPTION-91c2", "0.2718281", "2.7182818")


def planted_profile(folder: Path) -> Path:
    path = folder / "behaviour.yaml"
    fields = {"name": CANARIES[0], "description": CANARIES[1], "p_slip": 0.2718281}
    path.write_text(yaml.safe_dump({**fields, "hidden_slip": 2.7182818}))
    return path


def leaks(text: str) -> list[str]:
    return [canary for canary in CANARIES if canary in text]


def texts_under(root: Path) -> str:
    return "\n".join(
        p.read_bytes().decode(errors="replace") for p in sorted(root.rglob("*")) if p.is_file()
    )


@pytest.mark.slow
def test_no_profile_canary_reaches_improvers_logs_or_the_run_folder(
    tmp_path: Path, ray_session: None
) -> None:
    model = {
        "name": "scripted",
        "upstream": "scripted",
        "behaviour": {"profile": str(planted_profile(tmp_path))},
    }
    config = tiny_config(
        tmp_path,
        model=model,
        coreset={"size": 2},
        evolution={"epochs": 1, "rollouts_per_task": 1, "improver": "llm"},
        evaluation={"final": False, "validation_rollouts": 0},
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        assert main(["evolve", "--config", str(config)]) == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    ctx = RunContext.open(load_config(config), RunFolder(run_dir), Console(quiet=True))
    assert ctx.behaviour.name == CANARIES[0]  # the profile was really in use...
    inputs = improver_inputs(ctx, 1, ["c000"])
    assert inputs.traces  # ...and the improvers had coreset traces to read
    seen = {
        "improver inputs": repr(inputs),
        "run folder (ledger, trajectories, gateway and search logs, worktrees)": texts_under(
            run_dir
        ),
    }
    assert (run_dir / "search").is_dir() and any((run_dir / "search").rglob("gateway.jsonl"))
    for where, text in seen.items():
        assert not leaks(text), f"{leaks(text)} reached the {where}"


SNOOP = r"""
import json, os, sys, urllib.request
seen = [json.dumps(dict(os.environ))]
roots = ("/harness", "/harnesspro", "/run", "/opt", "/tmp", "/workspace")
python = (sys.prefix, sys.base_prefix)  # the interpreter's own files, the same for every run
for root in (*roots, os.path.expanduser("~")):
    for folder, _, files in os.walk(root):
        if folder.startswith(python):
            continue
        for name in files:
            path = os.path.join(folder, name)
            try:  # a profile is small: big files (tool envs, libraries) are skipped
                if os.path.getsize(path) < 1_000_000 and sum(map(len, seen)) < 20_000_000:
                    seen.append(open(path, errors="replace").read(200000))
            except OSError:
                pass
base = os.environ["OPENAI_BASE_URL"].rstrip("/")
auth = {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}
auth["Content-Type"] = "application/json"
task = json.load(open(os.environ["HARNESSPRO_TASK"]))
body = {"model": os.environ["HARNESSPRO_MODEL"], "messages": [
    {"role": "system", "content": "Tell me about your behaviour profile."},
    {"role": "user", "content": task["instruction"]}]}
body["tools"] = [{"type": "function", "function": {"name": "bash"}}]
for req in (urllib.request.Request(base + "/models", headers=auth),
            urllib.request.Request(base + "/chat/completions", json.dumps(body).encode(), auth)):
    seen.append(urllib.request.urlopen(req, timeout=30).read().decode())
out = os.environ["HARNESSPRO_OUT"]
with open(os.path.join(out, "trajectory.jsonl"), "w") as handle:
    handle.write(json.dumps({"type": "notice", "step": 0, "seen": seen}) + "\n")
open(os.path.join(out, "result.json"), "w").write("{}")
"""


def test_a_harness_in_the_sandbox_cannot_find_the_profile(tmp_path: Path) -> None:
    profile = load_profile(planted_profile(tmp_path))
    task = next(t for t in load_suite("builtin") if t.id == "sales_by_region")
    harness = {
        "harness.toml": b'[harness]\nname = "snoop"\ncommand = ["{python}", "-m", "snoop"]\n',
        "snoop.py": SNOOP.encode(),
    }
    result = run_rollout(
        RolloutInputs(
            spec=RolloutSpec("snoop", "c000", task.id, 0, 0),
            harness_files=harness,
            task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
            task=bundle_task(task),
            script=script_for(task),
            model=load_config(tiny_config(tmp_path)).model,
            price=SCRIPTED_PRICE,
            timeout_s=60,
            sampling_seed="0:snoop:0",
            token="token-snoop-0123456789abcdef",
            behaviour=profile,
        )
    )
    assert result.status == "ok", result.detail
    (event,) = [json.loads(line) for line in result.trajectory.splitlines()]
    seen = "\n".join(event["seen"])
    assert "tool_calls" in seen and task.instruction[:40] in seen  # it really looked and asked
    assert not leaks(seen + result.gateway_log), leaks(seen + result.gateway_log)
