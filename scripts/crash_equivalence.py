"""Crash equivalence: kill -9 a small run at N random moments, resume it each time, and
compare its final ledger with an uninterrupted run's (timestamps and commit ids ignored).

    python scripts/crash_equivalence.py [--kills 20] [--seed 0] [--workdir DIR]

Kill moments are drawn uniformly over the first quarter of the uninterrupted run's duration;
each resume skips finished work, so the kills fall in every phase (rollouts, improve, git,
selection, reports, held-out evaluation). Prints N, the
mismatching tables (0 when resume is faithful) and exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

CONFIG = {
    "name": "crash",
    "model": {"name": "scripted", "upstream": "scripted"},
    "prices": {"scripted": {"input": 1.25, "cached_input": 0.125, "output": 10.0}},
    "coreset": {"size": 3},
    "evolution": {"epochs": 1, "rollouts_per_task": 2},
    "evaluation": {"validation_tasks": 2, "validation_rollouts": 1, "attempts": 1},
}
# What must match, per table: every column but timestamps and commit ids.
TABLES = {
    "candidates": "SELECT id, tree, parent, directive, mechanism, epoch FROM candidates",
    "plans": "SELECT epoch, parent_id, directive, mechanism, child_id FROM plans",
    "rollouts": "SELECT key, candidate_id, task_id, attempt, epoch, status, pass, "
    "official_pass, uncached_input, cached_input, output, cost, n_calls, split FROM rollouts",
    "selections": "SELECT epoch, mode, candidate_id, pass_rate, cost FROM selections",
    "epochs": "SELECT epoch, hypervolume FROM epochs",
    "synth_tests": "SELECT task_id, sha256 FROM synth_tests",
}


def evolve(config: Path, run_dir: Path) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "harnesspro.cli", "evolve", "--config", str(config)]
    argv += ["--run-dir", str(run_dir)]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _rounded(row: tuple[object, ...]) -> tuple[object, ...]:
    # Means over rollouts recorded in another order differ in the last bits of a float.
    return tuple(round(v, 12) if isinstance(v, float) else v for v in row)


def snapshot(run_dir: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        return {
            name: sorted((_rounded(r) for r in db.execute(sql).fetchall()), key=repr)
            for name, sql in TABLES.items()
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="hp-crash-"))
    config = work / "crash.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    started = time.monotonic()
    assert evolve(config, work / "clean").wait() == 0, "the uninterrupted run failed"
    duration = time.monotonic() - started
    print(f"uninterrupted run: {duration:.0f} s", flush=True)
    rng = random.Random(args.seed)
    kills, crashed = 0, work / "crashed"
    while True:
        proc = evolve(config, crashed)
        if kills == args.kills:
            assert proc.wait() == 0, "the final resume failed"
            break
        # Within the first quarter of a full run's time: a resumed run skips finished work,
        # so successive kills still reach every later phase.
        at = rng.uniform(1.0, duration / 4)
        try:
            code = proc.wait(timeout=at)
            if code == 0:
                break  # finished before the kill moment: the run is complete
            raise SystemExit(f"a resumed run failed with exit code {code}")
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            kills += 1
            print(f"kill {kills}: after {at:.1f} s", flush=True)
    clean, resumed = snapshot(work / "clean"), snapshot(crashed)
    mismatches = [name for name in TABLES if clean[name] != resumed[name]]
    print(f"N = {kills} kills; mismatching tables: {len(mismatches)} {mismatches}")
    for name in mismatches:
        print(
            f"  {name}: only clean {len(set(clean[name]) - set(resumed[name]))} rows, "
            f"only resumed {len(set(resumed[name]) - set(clean[name]))} rows"
        )
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
