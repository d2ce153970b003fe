"""One rollout: materialise harness and task, run the harness in the sandbox behind the
gateway, grade with the official tests, and return everything as data."""

from __future__ import annotations

import json
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from harnesspro.config import ModelConfig, Price
from harnesspro.gateway.server import Gateway
from harnesspro.gateway.upstream import OpenAIUpstream, ScriptedUpstream, Upstream
from harnesspro.policies.scripted import ScriptedPolicy, TaskScript
from harnesspro.records import RolloutResult, RolloutSpec, RolloutStatus, Usage
from harnesspro.sandbox import Bubblewrap, Mount, SandboxResult

FORWARDER = Path(__file__).parent / "gateway" / "forwarder.py"
GATEWAY_PORT = 8377
SNAPSHOT_FILE_CAP = 256_000
TRAJECTORY_CAP = 2_000_000


@dataclass(frozen=True)
class RolloutInputs:
    """Everything a Ray worker needs, shipped as data."""

    spec: RolloutSpec
    harness_files: dict[str, bytes]
    task_json: dict[str, str]
    workspace_files: dict[str, bytes]
    test_files: dict[str, bytes]
    script: TaskScript | None
    model: ModelConfig
    price: Price
    timeout_s: float
    sampling_seed: str
    token: str


def write_tree(root: Path, files: dict[str, bytes]) -> Path:
    """Write relative path -> bytes under root (created)."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if rel.endswith(".sh"):
            target.chmod(0o755)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """Small files of the working directory after the run (input to the frozen tests)."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_file() and ".git/" not in rel + "/" and path.stat().st_size <= SNAPSHOT_FILE_CAP:
            files[rel] = path.read_bytes()
    return files


def harness_command(harness_dir: Path) -> list[str]:
    """The manifest's command with `{python}` resolved to this interpreter."""
    manifest = tomllib.loads((harness_dir / "harness.toml").read_text())
    return [part.replace("{python}", sys.executable) for part in manifest["harness"]["command"]]


def make_upstream(inputs: RolloutInputs) -> Upstream:
    """The upstream for this rollout's model config."""
    if inputs.model.upstream == "scripted":
        return ScriptedUpstream(ScriptedPolicy([inputs.script] if inputs.script else []))
    import os

    key = os.environ.get(inputs.model.api_key_env or "", "")
    return OpenAIUpstream(inputs.model.base_url, key)


def _run_harness(inputs: RolloutInputs, tmp: Path, gateway_dir: Path) -> SandboxResult:
    harness = write_tree(tmp / "harness", inputs.harness_files)
    task_dir = tmp / "task"
    write_tree(task_dir, {"task.json": json.dumps(inputs.task_json).encode()})
    workdir = inputs.task_json["workdir"]
    mounts = [
        Mount(harness, "/harness"),
        Mount(task_dir, "/harnesspro/task"),
        Mount(tmp / "out", "/harnesspro/out", writable=True),
        Mount(tmp / "work", workdir, writable=True),
        Mount(FORWARDER, "/opt/harnesspro/forwarder.py"),
        Mount(gateway_dir, "/run/harnesspro"),
    ]
    env = {
        "HARNESSPRO_TASK": "/harnesspro/task/task.json",
        "HARNESSPRO_OUT": "/harnesspro/out",
        "HARNESSPRO_MODEL": inputs.model.name,
        "OPENAI_BASE_URL": f"http://127.0.0.1:{GATEWAY_PORT}/v1",
        "OPENAI_API_KEY": inputs.token,
        "PYTHONPATH": "/harness",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    forward = [sys.executable, "/opt/harnesspro/forwarder.py", "/run/harnesspro/gw.sock"]
    argv = [*forward, str(GATEWAY_PORT), "--", *harness_command(harness)]
    return Bubblewrap().run(argv, mounts, env, workdir, inputs.timeout_s)


def grade_official(work: Path, workdir: str, test_files: dict[str, bytes], tmp: Path) -> bool:
    """Run the task's official tests/test.sh in the sandbox; pass = exit 0 and reward 1."""
    tests = write_tree(tmp / "tests", test_files)
    logs = tmp / "logs"
    logs.mkdir(exist_ok=True)
    mounts = [
        Mount(work, workdir, True),
        Mount(tests, "/tests"),
        Mount(logs, "/logs/verifier", True),
    ]
    result = Bubblewrap().run(["bash", "/tests/test.sh"], mounts, {}, workdir, 120.0)
    reward = logs / "reward.txt"
    rewarded = not reward.exists() or reward.read_text().strip() in ("1", "1.0")
    return result.exit_code == 0 and rewarded


def run_rollout(inputs: RolloutInputs) -> RolloutResult:
    """Run one rollout end to end; never raises for harness or task problems."""
    with tempfile.TemporaryDirectory(prefix="hp-roll-") as name:
        tmp = Path(name)
        (tmp / "out").mkdir()
        work = write_tree(tmp / "work", inputs.workspace_files)
        gateway_dir = tmp / "gw"
        gateway_dir.mkdir()
        gateway = Gateway(
            gateway_dir / "gw.sock", make_upstream(inputs), inputs.model.name, inputs.price
        )
        gateway.register(inputs.token, inputs.sampling_seed)
        with gateway:
            run = _run_harness(inputs, tmp, gateway_dir)
        infra = any(call.status >= 500 for call in gateway.calls)
        status: RolloutStatus = "ok"
        if infra:
            status = "infra_error"
        elif run.timed_out:
            status = "timeout"
        elif run.exit_code != 0:
            status = "harness_error"
        workspace = snapshot(work)
        official = grade_official(work, inputs.task_json["workdir"], inputs.test_files, tmp)
        trajectory_path = tmp / "out" / "trajectory.jsonl"
        trajectory = (
            trajectory_path.read_text()[:TRAJECTORY_CAP] if trajectory_path.exists() else ""
        )
        usage = sum((c.usage for c in gateway.calls), Usage())
        return RolloutResult(
            key=inputs.spec.key,
            status=status,
            usage=usage,
            cost=sum(c.cost for c in gateway.calls),
            latency_s=run.wall_s,
            n_calls=len(gateway.calls),
            official_pass=official,
            trajectory=trajectory,
            gateway_log="\n".join(gateway.log),
            workspace=workspace,
            detail=run.stderr[-2000:],
        )
