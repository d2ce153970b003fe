"""Sandbox start + teardown overhead per rollout: median of 20 runs of `true` under
bubblewrap (with a rollout's mounts, cgroup and limits) against the same command run
directly. Usage: .venv/bin/python scripts/bench_sandbox.py [RUNS]"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harnesspro.execution.rollout import FORWARDER
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.contract import Mount


def timed(run: object) -> float:
    started = time.perf_counter()
    run()  # type: ignore[operator]
    return time.perf_counter() - started


def main(runs: int = 20) -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for sub in ("harness", "task", "out", "work", "gw"):
            (tmp / sub).mkdir()
        mounts = [
            Mount(tmp / "harness", "/harness"),
            Mount(tmp / "task", "/harnesspro/task"),
            Mount(tmp / "out", "/harnesspro/out", True),
            Mount(tmp / "work", "/workspace", True),
            Mount(FORWARDER, "/opt/harnesspro/forwarder.py"),
            Mount(tmp / "gw", "/run/harnesspro"),
        ]
        sandbox = Bubblewrap()
        direct = [timed(lambda: subprocess.run(["true"], check=True)) for _ in range(runs)]
        boxed = [
            timed(lambda: sandbox.run(["true"], mounts, {}, "/workspace", 10)) for _ in range(runs)
        ]
    d, b = statistics.median(direct) * 1000, statistics.median(boxed) * 1000
    print(f"runs: {runs}")
    print(f"direct `true`:            median {d:6.1f} ms")
    print(f"bubblewrap `true`:        median {b:6.1f} ms")
    print(f"sandbox overhead per run: median {b - d:6.1f} ms (target < 100 ms)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
