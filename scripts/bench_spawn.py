"""What one sandboxed command costs when started from a Ray worker (as rollouts are).

Runs `true` in bubblewrap N times inside one Ray task and prints the wall time and the worker's
own CPU per run (the forked or vforked child's work is not in the worker's figure). Compare two
checkouts by running it with each on PYTHONPATH, alternating.

Usage: PYTHONPATH=. .venv/bin/python scripts/bench_spawn.py [N]
"""

from __future__ import annotations

import resource
import sys
import time

import ray

import harnesspro
from harnesspro.sandbox.bubblewrap import Bubblewrap


def cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


@ray.remote
def spawn(n: int) -> tuple[str, float, float]:
    sandbox, cpu0, wall0 = Bubblewrap(), cpu_s(), time.perf_counter()
    for _ in range(n):
        sandbox.run(["true"], [], {}, "/tmp", 30)
    return harnesspro.__file__, (time.perf_counter() - wall0) / n, (cpu_s() - cpu0) / n


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    where, wall, cpu = ray.get(spawn.remote(n))
    print(f"{where}: {n} sandbox runs, {wall * 1000:.1f} ms wall and {cpu * 1000:.1f} ms of "
          "the worker's CPU each")  # fmt: skip


if __name__ == "__main__":
    main()
