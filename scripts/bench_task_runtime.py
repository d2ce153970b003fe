"""Per-rollout overhead of the task runtime: what a rollout spends on its task besides the agent.

Usage: .venv/bin/python scripts/bench_task_runtime.py [SUITE_DIR ...] [--tasks N] [--build-steps]

For the first N runnable tasks of each suite (default: builtin), median seconds of: bundling the
task on the driver, writing it into a cold and a warm worker cache, laying it out (warm tool
environment, package layer and build), running its verifier, and an empty sandbox run for scale.
`--build-steps` takes only tasks whose Dockerfiles have shell RUN steps, and also times running
those steps once into a cold build cache (a one-time cost per task, not per rollout).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harnesspro.core.records import Task
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.buildsteps import ensure_build
from harnesspro.tasks.environment import Environment
from harnesspro.tasks.loader import load_suite
from harnesspro.tasks.ospackages import ensure_layer
from harnesspro.tasks.runtime import bundle_task, grade, materialise, open_task, unrunnable_reason
from harnesspro.tasks.toolenv import ensure_toolenv
from harnesspro.tasks.verify import environment_of


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = action()
    return time.perf_counter() - started, value


def bench_task(task: Task, sandbox: Bubblewrap) -> dict[str, float]:
    """Seconds of each stage for one task."""
    row: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="hp-bench-") as name:
        tmp = Path(name)
        open_task(task, tmp / "warmup")  # builds the tool environment / layer once, untimed
        row["bundle (driver)"], bundle = timed(lambda: bundle_task(task))
        row["materialise, cold cache"], _ = timed(lambda: materialise(bundle, tmp / "c"))
        row["materialise, warm cache"], copy = timed(lambda: materialise(bundle, tmp / "c"))
        row["lay out"], layout = timed(lambda: open_task(copy, tmp / "run"))
        row["verifier"], _ = timed(lambda: grade(copy, layout, sandbox))
        row["empty sandbox run"], _ = timed(
            lambda: sandbox.run(["true"], layout.mounts(), dict(layout.env), "/", 30)
        )
        env = environment_of(task)
        if isinstance(env, Environment) and env.build_steps:
            tools = ensure_toolenv(env.requirements) if env.requirements else None
            packages = ensure_layer(env.os_packages)
            row["build steps, once"], _ = timed(
                lambda: ensure_build(task, env, tools, packages, tmp / "cold")
            )
    return row


def has_build_steps(task: Task) -> bool:
    env = environment_of(task)
    return isinstance(env, Environment) and bool(env.build_steps)


def bench_suite(suite: str, n: int, sandbox: Bubblewrap, build_steps: bool) -> None:
    """Print the median of each stage over the first `n` runnable tasks of `suite`."""
    times: dict[str, list[float]] = {}
    pool = [t for t in load_suite(suite) if not build_steps or has_build_steps(t)]
    tasks = [t for t in pool if unrunnable_reason(t) is None][:n]
    for task in tasks:
        for key, value in bench_task(task, sandbox).items():
            times.setdefault(key, []).append(value)
    print(f"{suite}: {len(tasks)} tasks")
    for key, values in times.items():
        print(f"  {key:26} median {statistics.median(values) * 1000:8.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suites", nargs="*", default=["builtin"])
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--build-steps", action="store_true")
    args = parser.parse_args()
    sandbox = Bubblewrap()
    for suite in args.suites:
        bench_suite(suite, args.tasks, sandbox, args.build_steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
