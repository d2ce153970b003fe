"""Scaling of one epoch of I/O-bound rollouts over a local Ray cluster of 1, 2 and 4 worker nodes.

Each size gets a fresh `ray.cluster_utils.Cluster` (a head with no CPUs for the driver, plus
worker nodes of --node-cpus CPUs each, in a private RAY_TMPDIR) and runs the same batch of real
rollouts (seed harness, built-in tasks, bubblewrap, gateway) through the scheduler's `run_all`,
against the scripted policy with `model.latency`, so rollouts mostly wait like against a hosted
model. Each rollout requests --rollout-cpus CPUs; the engine keeps the cluster's slots busy.

Reported per size: rollouts per second, and the orchestration overhead: the epoch's wall time
minus the ideal one, i.e. the makespan of the same rollouts (their own durations, measured in
the workers) dealt in the same order onto the same number of slots with no delay in between.

Strong scaling (the same --rollouts at every size) suffers from the epoch's tail when a batch
is only a few waves deep; --per-slot K gives every size K waves (weak scaling).

Usage: .venv/bin/python scripts/bench_scaling.py [--rollouts 64 | --per-slot 4] [--sizes 1 2 4]
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import ray
from ray.cluster_utils import Cluster
from rich.console import Console

from harnesspro.core.config import RunConfig
from harnesspro.core.execution_config import RayConfig
from harnesspro.core.model_config import LatencyConfig, ModelConfig
from harnesspro.core.records import RolloutResult
from harnesspro.evaluation import engine
from harnesspro.evaluation.rollouts import task_payload
from harnesspro.execution import scheduler
from harnesspro.execution.rollout import RolloutInputs, run_rollout
from harnesspro.run.book import rollout_settings
from harnesspro.run.context import RunContext
from harnesspro.run.folder import RunFolder

PRICE = {"scripted": {"input": 1.25, "cached_input": 0.125, "output": 10.0}}


def timed(log: Path) -> object:
    """The engine's rollout task, also noting when each rollout ran (all nodes share this
    machine, hence the file)."""

    @ray.remote(max_retries=0)
    def rollout(inputs: RolloutInputs) -> RolloutResult:
        started = time.time()
        result = run_rollout(inputs)
        with log.open("a") as out:
            out.write(f"{inputs.spec.key} {started} {time.time()}\n")
        return result

    return rollout


def make_batch(args: argparse.Namespace, root: Path) -> list[RolloutInputs]:
    latency = LatencyConfig(first_token_s=tuple(args.first_token_s), tokens_per_s=(40.0, 80.0))
    config = RunConfig.model_validate(
        {
            "model": ModelConfig(latency=latency).model_dump(),
            "prices": PRICE,
            "coreset": {"size": 8},
            "ray": RayConfig(rollout_cpus=args.rollout_cpus).model_dump(),
        }
    )
    ctx = RunContext.open(config, RunFolder(root / "run"), Console(quiet=True))
    seed = ctx.seed()
    files = ctx.repo.files(seed.commit)
    tasks = ctx.splits.coreset
    settings = rollout_settings(ctx)
    payloads = {t: task_payload(ctx.tasks[t], scripted=True) for t in tasks}
    return [
        engine.rollout_inputs(settings, seed, files, payloads[tasks[i % len(tasks)]],
                              i // len(tasks), 0)
        for i in range(args.rollouts)
    ]  # fmt: skip


def model_wait(result: RolloutResult) -> float:
    """Seconds the rollout's calls spent in the (simulated) model, from the gateway's log."""
    return sum(json.loads(line)["latency_s"] for line in result.gateway_log.splitlines() if line)


def ideal_makespan(durations: list[float], slots: int) -> float:
    """Rollouts dealt in order to the first free of `slots`, back to back."""
    free = [0.0] * slots
    for d in durations:
        heapq.heappush(free, heapq.heappop(free) + d)
    return max(free)


def warm_up(slots: int, cpus: float, folder: Path) -> None:
    """Start the workers a busy long-lived cluster keeps (Ray starts them one at a time per
    1-CPU node and stops idle extras): `slots` tasks that hold their worker until all run."""

    @ray.remote(num_cpus=cpus)
    def hold() -> None:

        (folder / uuid.uuid4().hex).touch()
        deadline = time.monotonic() + 300
        while len(list(folder.iterdir())) < slots and time.monotonic() < deadline:
            time.sleep(0.1)

    folder.mkdir()
    ray.get([hold.remote() for _ in range(slots)])


def start_cluster(nodes: int, node_cpus: float) -> Cluster:
    """A head without CPUs (the driver's) and `nodes` worker nodes; a loaded machine can make
    a node miss Ray's fixed 30 s start-up wait, so that is retried."""
    for attempt in range(3):
        cluster = Cluster()
        try:
            cluster.add_node(num_cpus=0, include_dashboard=False)
            for _ in range(nodes):
                cluster.add_node(num_cpus=node_cpus)
            return cluster
        except Exception:
            cluster.shutdown()
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def one_size(nodes: int, batch: list[RolloutInputs], args: argparse.Namespace) -> dict[str, float]:
    temp = tempfile.mkdtemp(prefix="hp-ray-", dir="/tmp")
    os.environ["RAY_TMPDIR"] = temp  # our address file stays out of other programs' sight
    cluster = None
    try:
        cluster = start_cluster(nodes, args.node_cpus)
        ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
        in_flight = scheduler.Slots(args.rollout_cpus, None)
        in_flight()
        slots = in_flight.slots
        warm_up(slots, args.rollout_cpus, Path(temp) / "warm")
        log = Path(temp) / "timings.txt"
        scheduler._remote_rollout = timed(log)  # type: ignore[assignment]
        started = time.monotonic()
        results: list[RolloutResult] = []
        scheduler.run_all(batch, lambda i, r: results.append(r), in_flight, args.rollout_cpus,
                       infra_retries=0)  # fmt: skip
        wall = time.monotonic() - started
        rows = (line.split() for line in log.read_text().splitlines())
        spans = {key: (float(a), float(b)) for key, a, b in rows}
        durations = [spans[i.spec.key][1] - spans[i.spec.key][0] for i in batch]
        ideal = ideal_makespan(durations, slots)
        waiting = sum(model_wait(r) for r in results)
        return {
            "nodes": nodes,
            "slots": slots,
            "wall": wall,
            "ideal": ideal,
            "rate": len(batch) / wall,
            "mean": sum(durations) / len(durations),
            "wait": waiting / sum(durations),
            "n": len(batch),
        }
    finally:
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rollouts", type=int, default=64)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--node-cpus", type=float, default=1.0)
    parser.add_argument("--rollout-cpus", type=float, default=0.25)
    parser.add_argument("--first-token-s", type=float, nargs=2, default=[1.0, 2.0])
    parser.add_argument(
        "--per-slot", type=int, help="weak scaling: this many rollouts per slot at every size"
    )
    args = parser.parse_args()
    per_slot = args.node_cpus / args.rollout_cpus
    sizes = {n: args.per_slot * int(n * per_slot) if args.per_slot else args.rollouts
             for n in args.sizes}  # fmt: skip
    args.rollouts = max(sizes.values())
    with tempfile.TemporaryDirectory(prefix="hp-bench-") as root:
        batch = make_batch(args, Path(root))
        rows = [one_size(n, batch[: sizes[n]], args) for n in args.sizes]
    base = rows[0]["rate"]
    shape = f"{args.per_slot} per slot" if args.per_slot else f"{args.rollouts}"
    print(f"{shape} rollouts, {args.rollout_cpus} CPU each, {args.node_cpus} CPUs per node")
    print(HEADER)
    for r in rows:
        print(row_line(r, base))


HEADER = "nodes  slots  rollouts  wall_s  ideal_s  rollouts/s   vs_1  overhead  rollout_s  wait"


def row_line(r: dict[str, float], base: float) -> str:
    """One size's figures, under HEADER; overhead = (wall - ideal) / wall."""
    over = (r["wall"] - r["ideal"]) / r["wall"]
    cells = [
        f"{r['nodes']:5.0f}", f"{r['slots']:5.0f}", f"{r['n']:8.0f}", f"{r['wall']:6.1f}",
        f"{r['ideal']:7.1f}", f"{r['rate']:10.3f}", f"{r['rate'] / base:4.2f}x", f"{over:8.1%}",
        f"{r['mean']:9.1f}", f"{r['wait']:10.0%}",
    ]  # fmt: skip
    return "  ".join(cells)


if __name__ == "__main__":
    main()
