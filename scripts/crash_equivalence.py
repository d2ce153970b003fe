"""Crash equivalence: kill -9 a small run in every phase, resume it each time, and compare its
final ledger with an uninterrupted run's (timestamps and commit ids ignored).

    python scripts/crash_equivalence.py [--kills 20] [--seed 0] [--workdir DIR] [--small]

The run writes the phase it is in to RUN/phase (rollouts, improve, git, selection, reports,
held-out). The uninterrupted run is watched first, to learn each phase's typical length. Then
rounds: each round starts a fresh run folder and aims one kill at each phase in the order the
run meets them; a kill comes a random moment (up to half the phase's typical length; at once
for a phase shorter than 0.2 s) after the phase begins and is counted in the phase the run
was in at that instant (read just before the SIGKILL, which goes to the run's whole process
group). A phase missed by a kill stays the
target; a round ends when its run completes, and its ledger is compared. Rounds go on until
N kills are made and every phase has one. Prints N, the kills per phase and the mismatches
(0 when resume is faithful); exits 1 on any mismatch or a phase never killed. `--small`
runs a smaller config (2 coreset tasks, G = 1, 2 held-out tasks, no official verifier on
search rollouts) for the slow test. With RAY_ADDRESS set the runs join that Ray cluster instead
of each starting an embedded one: a kill then ends the run's driver, and Ray the tasks it owned.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
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
SMALL = {
    **CONFIG,
    "tasks": {"test_fraction": 0.05},
    "coreset": {"size": 2},
    "evolution": {"epochs": 1, "rollouts_per_task": 1},
    "evaluation": {
        "validation_tasks": 1,
        "validation_rollouts": 1,
        "attempts": 1,
        "official_on_search": False,  # the held-out evaluation still runs the official tests
    },
}
PHASES = ("rollouts", "improve", "git", "selection", "reports", "held-out")
# The order a run meets the phases, for odd rounds (rollouts, selection and reports of epoch
# 0) and even rounds (those of epoch 1).
ORDERS = (
    ("rollouts", "selection", "reports", "improve", "git", "held-out"),
    ("improve", "git", "rollouts", "selection", "reports", "held-out"),
)
# What must match, per table: every column but timestamps and commit ids.
TABLES = {
    "candidates": "SELECT id, tree, parent, directive, mechanism, epoch FROM candidates",
    "plans": "SELECT epoch, parent_id, directive, mechanism, rationale, predicted_pass, "
    "predicted_cost, child_id, note, verdict FROM plans",
    "diagnoses": "SELECT epoch, candidate_id, task_id, kind, count, of FROM diagnoses",
    "rollouts": "SELECT key, candidate_id, task_id, attempt, epoch, status, pass, "
    "official_pass, uncached_input, cached_input, output, cost, n_calls, split FROM rollouts",
    "selections": "SELECT epoch, mode, candidate_id, pass_rate, cost FROM selections",
    "epochs": "SELECT epoch, hypervolume FROM epochs",
    "synth_tests": "SELECT task_id, sha256 FROM synth_tests",
}
POLL_S = 0.003
SHORT_S = 0.2


def start(config: Path, run_dir: Path) -> subprocess.Popen[bytes]:
    """`harnesspro evolve` in its own process group (its Ray agents die with it)."""
    argv = [sys.executable, "-m", "harnesspro", "evolve", "--config", str(config)]
    argv += ["--run-dir", str(run_dir)]
    with open(run_dir.parent / f"{run_dir.name}.stderr", "ab") as log:
        return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the run's process group: the run if alive, and its embedded Ray's processes."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def phase_of(run_dir: Path, since_ns: int) -> str | None:
    """The phase a run started at `since_ns` wrote last (None before it wrote one)."""
    path = run_dir / "phase"
    try:
        if path.stat().st_mtime_ns < since_ns:
            return None  # left by the process killed before
        return path.read_text().strip()
    except FileNotFoundError:
        return None


def finished(proc: subprocess.Popen[bytes]) -> bool:
    code = proc.poll()
    if code not in (None, 0):
        raise SystemExit(f"a run failed with exit code {code}; see its .stderr file")
    return code == 0


def timeline(config: Path, run_dir: Path) -> dict[str, float]:
    """Run uninterrupted, watching its phases; returns each phase's median length (s)."""
    since, proc = time.time_ns(), start(config, run_dir)
    spans: dict[str, list[float]] = {}
    current, began = None, time.monotonic()
    while True:
        done = finished(proc)
        phase = phase_of(run_dir, since)
        if phase != current or done:
            if current is not None:
                spans.setdefault(current, []).append(time.monotonic() - began)
            current, began = phase, time.monotonic()
        if done:
            kill_group(proc)
            return {p: sorted(s)[len(s) // 2] for p, s in spans.items()}
        time.sleep(POLL_S)


def aim(config: Path, run_dir: Path, target: str, length: float, rng: random.Random) -> str | None:
    """Resume the run and kill it a random moment into `target`; returns the phase the kill
    hit, or None when the run completed first."""
    since, proc = time.time_ns(), start(config, run_dir)
    try:
        while phase_of(run_dir, since) != target:
            if finished(proc):
                return None
            time.sleep(POLL_S)
        # Up to half the phase's typical length (on a loaded machine the kill lands later);
        # a phase shorter than SHORT_S is killed as soon as it is seen, or it is always missed.
        delay = 0.0 if length < SHORT_S else rng.uniform(0, length / 2)
        deadline = time.monotonic() + delay
        while time.monotonic() < deadline and not finished(proc):
            time.sleep(POLL_S)
        hit = phase_of(run_dir, since)
        return None if finished(proc) else hit
    finally:  # the kill -9, of the run and its Ray processes
        kill_group(proc)


def _rounded(row: tuple[object, ...]) -> tuple[object, ...]:
    # Means over rollouts recorded in another order differ in the last bits of a float.
    return tuple(round(v, 12) if isinstance(v, float) else v for v in row)


def snapshot(run_dir: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        return {
            name: sorted((_rounded(r) for r in db.execute(sql).fetchall()), key=repr)
            for name, sql in TABLES.items()
        }


def compare(clean: dict[str, list[tuple[object, ...]]], run_dir: Path) -> list[str]:
    """The tables of `run_dir` that differ from the uninterrupted run's (printed)."""
    resumed = snapshot(run_dir)
    mismatches = [name for name in TABLES if clean[name] != resumed[name]]
    for name in mismatches:
        print(
            f"  {run_dir.name} {name}: only clean {len(set(clean[name]) - set(resumed[name]))} "
            f"rows, only resumed {len(set(resumed[name]) - set(clean[name]))} rows"
        )
    return mismatches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--small", action="store_true", help="the slow test's smaller run")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="hp-crash-"))
    work.mkdir(parents=True, exist_ok=True)
    config = work / "crash.yaml"
    config.write_text(yaml.safe_dump(SMALL if args.small else CONFIG))
    started = time.monotonic()
    # Phase lengths come from this first run; its smoke rollouts fill the machine's memo
    # (harness/smoke_memo.py), so the resumes' improve phases are shorter than measured here: a
    # kill aimed into one may land after it, and the phase stays the target for the next resume.
    lengths = timeline(config, work / "clean")
    clean = snapshot(work / "clean")
    print(
        f"uninterrupted run: {time.monotonic() - started:.0f} s; median phase lengths: "
        + ", ".join(f"{p} {lengths.get(p, 0):.2f} s" for p in PHASES),
        flush=True,
    )
    rng, kills, rounds, mismatches = random.Random(args.seed), Counter[str](), 0, 0

    def enough() -> bool:
        return sum(kills.values()) >= args.kills and all(kills[p] for p in PHASES)

    while not enough():
        rounds += 1
        run_dir, complete = work / f"crashed-{rounds}", False
        for target in ORDERS[(rounds - 1) % 2]:
            while not complete and not enough():
                hit = aim(config, run_dir, target, lengths.get(target, 0.0), rng)
                complete = hit is None
                if hit is not None:
                    kills[hit] += 1
                    print(f"round {rounds}: kill aimed at {target}, hit {hit}", flush=True)
                if hit == target:
                    break
        if not complete:  # the resume that completes the round's run
            final = start(config, run_dir)
            if final.wait() != 0:
                raise SystemExit(f"the final resume of round {rounds} failed")
            kill_group(final)
        mismatches += len(compare(clean, run_dir))
    per_phase = ", ".join(f"{p} {kills[p]}" for p in (*PHASES, "done") if kills[p] or p != "done")
    print(f"N = {sum(kills.values())} kills over {rounds} rounds ({per_phase})")
    print(f"mismatching tables: {mismatches}")
    return 1 if mismatches or any(kills[p] == 0 for p in PHASES) else 0


if __name__ == "__main__":
    sys.exit(main())
