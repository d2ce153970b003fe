"""Where a scripted rollout's time goes, and rollouts per second.

Runs N rollouts of the seed harness on built-in tasks (scripted policy, bubblewrap) in this
process and times each phase by wrapping the functions `run_rollout` calls: materialising
files, the gateway (start/stop), the harness in the sandbox (sandbox start + interpreter
start-up + agent loop + policy), the policy's own answers, the official verifier, the
workspace snapshot; then the driver's share: writing artifacts and the ledger row.
Ratios are printed too: the machine is shared, so absolute times move between runs.

Usage: PYTHONPATH=. .venv/bin/python scripts/bench_rollout.py [N]
"""

from __future__ import annotations

import collections
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harnesspro.core.ledger import Ledger
from harnesspro.core.model_config import ModelConfig, Price
from harnesspro.core.records import RolloutSpec
from harnesspro.execution import rollout
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.gateway import upstream as upstream_module
from harnesspro.execution.rollout import RolloutInputs, run_rollout
from harnesspro.run.context import seed_template
from harnesspro.run.folder import RunFolder
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.loader import folder_files, load_suite
from harnesspro.tasks.runtime import bundle_task

SPENT: dict[str, float] = collections.defaultdict(float)


def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[name] += time.perf_counter() - started

    return wrapper


def instrument() -> None:
    """Wrap the phases in place (this script only)."""
    rollout.write_tree = timed("materialise files", rollout.write_tree)
    rollout._run_harness = timed("harness in sandbox", rollout._run_harness)
    rollout.grade = timed("official verifier", rollout.grade)
    rollout.snapshot = timed("workspace snapshot", rollout.snapshot)
    gw = rollout.Gateway
    gw.__enter__ = timed("gateway start", gw.__enter__)  # type: ignore[method-assign]
    gw.__exit__ = timed("gateway stop", gw.__exit__)  # type: ignore[method-assign]
    up = upstream_module.ScriptedUpstream
    up.complete = timed("policy answers", up.complete)  # type: ignore[method-assign]


def inputs_for(task: Any, harness: dict[str, bytes], i: int, grade: bool) -> RolloutInputs:
    return RolloutInputs(
        spec=RolloutSpec(f"bench{i}", "seed", task.id, i, 0),
        harness_files=harness,
        task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
        task=bundle_task(task),
        script=script_for(task),
        model=ModelConfig(),
        price=Price(input=1.25, cached_input=0.125, output=10.0),
        timeout_s=task.timeout_s,
        sampling_seed=f"bench:{i}",
        token=secrets.token_hex(16),
        grade=grade,
    )


def interpreter_start(runs: int) -> tuple[float, float]:
    """Median ms of the sandbox's `python -c pass` with and without site (the forwarder's -S)."""
    sandbox = Bubblewrap()
    times: dict[bool, list[float]] = {True: [], False: []}
    for i in range(2 * runs):
        flag = ["-S"] if i % 2 else []
        started = time.perf_counter()
        sandbox.run([sys.executable, *flag, "-c", "pass"], [], {}, "/tmp", 30)
        times[bool(i % 2)].append(time.perf_counter() - started)
    return statistics.median(times[False]) * 1000, statistics.median(times[True]) * 1000


def main(n: int = 12) -> None:
    instrument()
    tasks = sorted(load_suite("builtin"), key=lambda t: t.id)
    harness = folder_files(seed_template())
    with tempfile.TemporaryDirectory() as name:
        run = RunFolder(Path(name) / "run")
        run.root.mkdir(parents=True)
        ledger = Ledger(Path(name) / "ledger.sqlite")
        started = time.perf_counter()
        by_grade: dict[bool, list[float]] = {True: [], False: []}
        for i in range(n):
            # Interleaved, same task for both: the verifier's share is a ratio within one run.
            grade = i % 2 == 0
            inputs = inputs_for(tasks[(i // 2) % len(tasks)], harness, i, grade)
            began = time.perf_counter()
            result = timed("rollout (total)", run_rollout)(inputs)
            by_grade[grade].append(time.perf_counter() - began)
            artifacts = timed("driver: artifacts", run.save_rollout)(result)
            timed("driver: ledger row", ledger.record_rollout)(
                inputs.spec, result, artifacts, "coreset"
            )
        wall = time.perf_counter() - started
    total = SPENT["rollout (total)"]
    inner = sum(v for k, v in SPENT.items() if not k.startswith(("rollout", "driver", "policy")))
    SPENT["other (tempdir, classify, result)"] = total - inner
    print(f"rollouts: {n}, wall {wall:.2f} s, {n / wall:.2f} rollouts/s (one process)")
    for key in sorted(SPENT, key=lambda k: -SPENT[k]):
        ms = SPENT[key] / n * 1000
        print(f"  {key:<36} {ms:8.1f} ms/rollout  {SPENT[key] / total:6.1%} of a rollout")
    print("  (policy answers run inside 'harness in sandbox', on the gateway's thread)")
    with_v, without = (statistics.mean(by_grade[g]) * 1000 for g in (True, False))
    print(f"with the official verifier:    {with_v:7.1f} ms/rollout (search rollouts, before)")
    print(
        f"without (official_on_search):  {without:7.1f} ms/rollout (after); "
        f"ratio {without / with_v:.2f}"
    )
    site, no_site = interpreter_start(max(3, n // 2))
    print(
        f"sandboxed `python -c pass`: {site:.1f} ms with site, {no_site:.1f} ms with -S "
        f"(the forwarder, after); ratio {no_site / site:.2f}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 12)
