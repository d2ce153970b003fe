"""`harnesspro bench --workers N`: the profiles split over N bench processes that share OUT.

Each child runs the same command on its share of the profiles (every run seed and variant of
a profile in one child, so a profile's runs and yardstick have one writer); the rollout cache
and the verdict memo are SQLite files that several processes may write. The calling process
then goes through every unit itself: a finished run is resumed at no cost, a run a failed
child left unfinished runs there, and the report covers every unit.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.console import Console


def shares(seeds: Sequence[int], workers: int) -> list[list[int]]:
    """The profiles dealt round-robin over at most `workers` non-empty shares."""
    return [list(seeds[i::workers]) for i in range(min(workers, len(seeds)))]


def child_argv(
    argv: Sequence[str], profiles: Sequence[int], run_seeds: Sequence[int] = ()
) -> list[str]:
    """The bench's own arguments (without `--workers`) for one child's profiles and, under
    `--paired`, their `run_seeds` in the same order."""
    dropped = ("--workers", "--profile-seeds", *(("--run-seeds",) if run_seeds else ()))
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in dropped:
            skip = True
            continue
        if arg.startswith(tuple(f"{d}=" for d in dropped)):
            continue
        out.append(arg)
    out += ["--profile-seeds", ",".join(map(str, profiles))]
    out += ["--run-seeds", ",".join(map(str, run_seeds))] if run_seeds else []
    return [sys.executable, "-m", "harnesspro", *out]


def run_shards(argv: Sequence[str], units: Mapping[int, Sequence[int | None]], workers: int,
               out: Path, console: Console) -> None:  # fmt: skip
    """Run the children side by side (each on a share of the profiles, with their run seeds
    under `--paired`) and wait for all of them; say which failed."""
    paired = "--paired" in argv
    logs = out / "shards"
    logs.mkdir(parents=True, exist_ok=True)
    children = []
    try:
        for number, profiles in enumerate(shares(list(units), workers)):
            runs = [s for p in profiles for s in units[p] if s is not None] if paired else []
            log = (logs / f"shard-{number}.log").open("a")
            proc = subprocess.Popen(child_argv(argv, profiles, runs), stdout=log, stderr=log)
            children.append((number, profiles, proc, log))
        console.print(f"bench: {len(children)} worker processes, logs in {logs}")
        for number, profiles, proc, log in children:
            code = proc.wait()
            log.close()
            if code != 0:
                console.print(
                    f"  worker {number} (profiles {profiles}) ended with exit code {code}; "
                    f"see {logs / f'shard-{number}.log'}: its unfinished runs run here"
                )
    finally:
        for _, _, proc, _ in children:
            if proc.poll() is None:
                proc.terminate()
