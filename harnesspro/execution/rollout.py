"""One rollout: materialise harness and task, run the harness in the sandbox behind the
gateway, grade with the official tests, and return everything as data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from harnesspro.core.model_config import ModelConfig, Price
from harnesspro.core.records import (
    RolloutResult,
    RolloutSpec,
    RolloutStatus,
    Task,
    Usage,
    VerifierEvidence,
    total_usage,
)
from harnesspro.core.registry import upstream_class
from harnesspro.core.retry import RetryPolicy, fitted
from harnesspro.core.rollout_budget import RolloutBudget
from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE
from harnesspro.execution.fakes.task_script import TaskScript
from harnesspro.execution.gateway.server import Gateway
from harnesspro.execution.gateway.upstream import ScriptedUpstream, Upstream
from harnesspro.execution.harness_bytecode import bytecode_files
from harnesspro.execution.harness_entry import harness_command, harness_toolenv
from harnesspro.execution.outcome import HarnessError, InfraError, blame, classify, total_cost
from harnesspro.execution.verdict_memo import VerdictMemo, memo_key
from harnesspro.execution.worlds import Profile, draw_salt, make_policy
from harnesspro.sandbox import make_sandbox
from harnesspro.sandbox.contract import Limits, Mount, Sandbox, SandboxResult, map_paths
from harnesspro.sandbox.local import Local
from harnesspro.sandbox.snapshot import Snapshot, SnapshotLimit
from harnesspro.sandbox.snapshot import take as take_snapshot
from harnesspro.sandbox.snapshot import write as write_snapshot
from harnesspro.sandbox.untrusted import read_regular, remove_tree
from harnesspro.tasks.layout import Layout
from harnesspro.tasks.loader import TaskError
from harnesspro.tasks.runtime import TaskBundle, grade, materialise, open_task
from harnesspro.tasks.toolenv import ToolEnvError

FORWARDER = Path(__file__).parent / "gateway" / "forwarder.py"
GATEWAY_PORT = 8377  # inside the sandbox's own network namespace
TRAJECTORY_CAP = 2_000_000
# A Unix socket's path holds at most 107 bytes: under a longer temporary folder the gateway's
# socket gets a short folder of its own under /tmp.
SOCKET_BASE_MAX = 64


@dataclass(frozen=True)
class RolloutInputs:
    """Everything a Ray worker needs, shipped as data."""

    spec: RolloutSpec
    harness_files: dict[str, bytes]
    task_json: dict[str, str]
    task: TaskBundle
    script: TaskScript | None
    model: ModelConfig
    price: Price | None  # None: unpriced model (allow_unpriced), cost unknown
    timeout_s: float
    sampling_seed: str
    token: str
    sandbox: str = "bubblewrap"
    memory_mb: int = 4096
    budget: RolloutBudget = RolloutBudget()
    retry: RetryPolicy = RetryPolicy()
    grade: bool = True
    """Run the official verifier (search rollouts may skip it: evaluation.official_on_search)."""
    behaviour: Profile = DEFAULT_PROFILE  # trusted side: the gateway's only (world v2 or v3)
    verdict_memo: Path | None = None
    """The fast mode's memo of official verdicts (execution/verdict_memo.py), or None."""
    model_url: str | None = None
    """The base URL of the llama.cpp server the run started (upstream llama-cpp)."""


def write_tree(root: Path, files: Mapping[str, bytes]) -> Path:
    """Write relative path -> bytes under root (created); a `Snapshot` brings its folders,
    modes and symbolic links too."""
    if isinstance(files, Snapshot):
        return write_snapshot(root, files)
    root.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if rel.endswith(".sh"):
            target.chmod(0o755)
    return root


def snapshot(root: Path, sandbox: Sandbox | None = None, workdir: str = "") -> Snapshot:
    """The working directory after the run (input to the frozen tests): small files, links,
    modes and git state (read by git in `sandbox`, with root mounted at `workdir`)."""
    return take_snapshot(root, sandbox, workdir)


def visible_script(script: TaskScript, sandbox: Sandbox, mounts: list[Mount]) -> TaskScript:
    """The scripted policy's task knowledge with paths as the harness sees them: the `local`
    backend runs at host paths, so its commands name those, as a model told the real
    workdir would."""
    if not isinstance(sandbox, Local):
        return script

    def at(text: str) -> str:
        return map_paths(text, mounts)

    return replace(
        script,
        workdir=at(script.workdir),
        steps=tuple(map(at, script.steps)),
        inputs=tuple(map(at, script.inputs)),
        outputs=tuple(map(at, script.outputs)),
        long_inputs=tuple(map(at, script.long_inputs)),
        variants=tuple((at(path), kind) for path, kind in script.variants),
    )


def make_upstream(inputs: RolloutInputs, script: TaskScript | None = None) -> Upstream:
    """The upstream for this rollout's model config (`script` replaces the inputs' own);
    provider keys stay in this process. Each attempt's timeout is sized so that a retry
    still fits in the rollout's time."""
    if inputs.model.upstream == "scripted":
        script = script or inputs.script
        scripts = [script] if script else []
        policy = make_policy(scripts, inputs.behaviour, rollout_salt(inputs))
        return ScriptedUpstream(policy, inputs.model.latency)
    if inputs.model.upstream == "llama-cpp":
        if inputs.model_url is None:
            raise ValueError("upstream llama-cpp: the caller started no server (model_url)")
        timeout_s = min(inputs.model.local_server.call_timeout_s, inputs.timeout_s)
        local: Upstream = upstream_class("llama-cpp")(inputs.model_url, timeout_s=timeout_s)
        return local
    key = os.environ.get(inputs.model.api_key_env or "", "")
    _, attempt_s = fitted(inputs.retry, inputs.timeout_s)
    upstream: Upstream = upstream_class("openai")(inputs.model.base_url, key, timeout_s=attempt_s)
    return upstream


def rollout_salt(inputs: RolloutInputs) -> str:
    """What this rollout mixes into the scripted model's draws ("" = common draws)."""
    return draw_salt(inputs.behaviour, inputs.spec.candidate_id, inputs.spec.key)


def context_window(model: ModelConfig) -> int | None:
    """The model's context window in tokens, when known: the config's, else the local
    server's."""
    if model.context_tokens or model.upstream != "llama-cpp":
        return model.context_tokens
    return model.local_server.context_tokens


def _harness_mounts(
    inputs: RolloutInputs, tmp: Path, gateway_dir: Path, layout: Layout, sandbox: Sandbox
) -> list[Mount]:
    """The task's layout first (files at their container paths, its tools), then the
    harness's own mounts on top, under /harnesspro and /run where no task puts files."""
    files = inputs.harness_files
    harness = write_tree(tmp / "harness", {**files, **bytecode_files(files)})
    # The workdir as the harness sees it (the `local` backend maps it to its host folder).
    workdir = sandbox.visible_path(layout.mounts(), layout.workdir)
    task_json = {**inputs.task_json, "workdir": workdir}
    task_dir = write_tree(tmp / "taskjson", {"task.json": json.dumps(task_json).encode()})
    return [
        *layout.mounts(),
        Mount(harness, "/harness"),
        Mount(task_dir, "/harnesspro/task"),
        Mount(tmp / "out", "/harnesspro/out", writable=True),
        Mount(FORWARDER, "/harnesspro/forwarder.py"),
        Mount(gateway_dir, "/run/harnesspro"),
    ]


def _run_harness(
    inputs: RolloutInputs, sandbox: Sandbox, tmp: Path, gw: Path, layout: Layout
) -> SandboxResult:
    mounts = _harness_mounts(inputs, tmp, gw, layout, sandbox)
    toolenv = harness_toolenv(tmp / "harness")  # read-only at its own path
    mounts += toolenv.mounts() if toolenv else []
    at = sandbox.visible_path
    task_env = dict(layout.env)  # the Dockerfile's ENV, HOME and PATH, as in the container
    python_path = ":".join(p for p in (at(mounts, "/harness"), task_env.get("PYTHONPATH")) if p)
    env = {
        **task_env,
        "HARNESSPRO_TASK": at(mounts, "/harnesspro/task/task.json"),
        "HARNESSPRO_OUT": at(mounts, "/harnesspro/out"),
        "HARNESSPRO_MODEL": inputs.model.name,
        "OPENAI_API_KEY": inputs.token,
        "PYTHONPATH": python_path,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    window = context_window(inputs.model)
    if window:  # the window the harness's prompts must fit
        env["HARNESSPRO_CONTEXT_TOKENS"] = str(window)
    port = GATEWAY_PORT if sandbox.visible_path(mounts, "/harness") == "/harness" else 0
    # -S: the forwarder is standard library only, and skipping site saves most of its start-up
    forward = [sys.executable, "-S", at(mounts, "/harnesspro/forwarder.py")]
    argv = [*forward, at(mounts, "/run/harnesspro/gw.sock"), str(port), "--"]
    argv += harness_command(tmp / "harness", toolenv)
    result = sandbox.run(argv, mounts, env, layout.workdir, inputs.timeout_s)
    layout.tidy()
    return result


def graded(inputs: RolloutInputs, task: Task, layout: Layout, sandbox: Sandbox) -> VerifierEvidence:
    """The official verdict on the layout's state: from the verdict memo when this state was
    graded before (the fast mode), else by running the verifier (kept in the memo)."""
    if inputs.verdict_memo is None:
        return grade(task, layout, sandbox)
    key = memo_key(inputs.task.digest, layout.root, layout.logs)
    memo = VerdictMemo(inputs.verdict_memo)
    try:
        known = memo.get(key) if key else None
        if known is not None:
            return known
        verdict = grade(task, layout, sandbox)
        if key:
            memo.put(key, verdict)
        return verdict
    finally:
        memo.close()


def _infra_result(inputs: RolloutInputs, reason: str) -> RolloutResult:
    """Our side could not set the task up: never counted as the harness's failure."""
    return RolloutResult(
        key=inputs.spec.key,
        status="infra_error",
        usage=Usage(),
        cost=None,
        latency_s=0.0,
        n_calls=0,
        official_pass=None,
        trajectory="",
        gateway_log="",
        workspace={},
        reason=reason.splitlines()[0][:300] if reason else "task setup failed",
    )


def run_rollout(inputs: RolloutInputs, upstream: Upstream | None = None) -> RolloutResult:
    """Run one rollout end to end; never raises for harness or task problems.

    `upstream` overrides the one the model config names (tests pass a ReplayUpstream). The
    rollout's folder on the host is removed whatever happens, under a time limit and at any
    depth; one the harness left unremovable is its failure (the folder stays, named).
    """
    tmp = Path(tempfile.mkdtemp(prefix="hp-roll-"))
    try:
        gateway_dir = _socket_folder()
    except OSError as exc:
        remove_tree(tmp)
        return _infra_result(inputs, f"no folder for the gateway's socket: {exc}")
    try:
        result = _rollout_in(tmp, gateway_dir, inputs, upstream)
    finally:
        left = remove_tree(tmp)
        _remove_socket_folder(gateway_dir)
    if left and result.status != "infra_error":
        status, reason = blame(result.status, result.reason, f"its folder stayed: {left}")
        return replace(result, status=status, reason=reason)
    return result


def _run_metered(
    inputs: RolloutInputs, sandbox: Sandbox, tmp: Path, gateway: Gateway, layout: Layout
) -> tuple[SandboxResult, RolloutStatus, str]:
    """Run the harness behind the open gateway; its result, status and reason."""
    try:
        run = _run_harness(inputs, sandbox, tmp, gateway.socket_path.parent, layout)
    except HarnessError as exc:
        return SandboxResult(None, False, "", "", 0.0, str(exc)), "harness_error", str(exc)
    except InfraError as exc:
        why = str(exc).splitlines()[0][:300]
        return SandboxResult(None, False, "", "", 0.0, str(exc)), "infra_error", why
    return run, *classify(run, tmp / "out", gateway, gateway.in_flight)


def _socket_folder() -> Path:
    """A new folder for the gateway's socket whose path is short enough for one."""
    base = tempfile.gettempdir()
    return Path(
        tempfile.mkdtemp(prefix="hp-gw-", dir=base if len(base) <= SOCKET_BASE_MAX else "/tmp")
    )


def _remove_socket_folder(folder: Path) -> None:
    """Empty once the gateway has closed (the sandbox mounts it read-only); else removed as
    any tree the harness could reach."""
    try:
        folder.rmdir()
    except OSError:
        remove_tree(folder)


def _rollout_in(
    tmp: Path, gateway_dir: Path, inputs: RolloutInputs, upstream: Upstream | None
) -> RolloutResult:
    sandbox = make_sandbox(inputs.sandbox, Limits(memory_mb=inputs.memory_mb))
    (tmp / "out").mkdir()
    try:
        task = materialise(inputs.task)
        layout = open_task(task, tmp / "task")
    except (TaskError, ToolEnvError, OSError, subprocess.SubprocessError) as exc:
        return _infra_result(inputs, f"preparing task '{inputs.task.task_id}' failed: {exc}")
    if upstream is None:
        seen = inputs.script and visible_script(inputs.script, sandbox, layout.mounts())
        upstream = make_upstream(inputs, seen or None)
    retry, _ = fitted(inputs.retry, inputs.timeout_s)
    gateway = Gateway(
        gateway_dir / "gw.sock", upstream, inputs.model.name, inputs.price, inputs.budget, retry
    )
    gateway.register(inputs.token, inputs.sampling_seed)
    with gateway:
        run, status, reason = _run_metered(inputs, sandbox, tmp, gateway, layout)
    # The snapshot is taken before the verifier runs: grading cannot change what is scored.
    try:
        workspace = snapshot(layout.host(layout.workdir), sandbox, layout.workdir)
    except SnapshotLimit as exc:
        workspace = Snapshot()
        status, reason = blame(status, reason, str(exc))
    verdict = graded(inputs, task, layout, sandbox) if inputs.grade else None
    trajectory = read_regular(tmp / "out" / "trajectory.jsonl", TRAJECTORY_CAP) or b""
    return RolloutResult(
        key=inputs.spec.key,
        status=status,
        usage=total_usage(c.usage for c in gateway.calls),
        cost=total_cost(gateway),
        latency_s=run.wall_s,
        n_calls=len(gateway.calls),
        official_pass=verdict.passed if verdict else None,
        trajectory=trajectory.decode(errors="replace"),
        gateway_log="\n".join(gateway.log),
        workspace=workspace,
        detail=run.stderr[-2000:],
        reason=reason,
        verifier=verdict,
        chat_log="\n".join(gateway.chat_log.lines),
    )
