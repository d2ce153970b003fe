"""The shipped adversarial harnesses against every task of one or more suites (the full
sweep; `make test` attacks a slice of the external dev sets).

Usage: .venv/bin/python scripts/adversary_sweep.py [--harness NAME] SUITE...
NAME: adversarial, linker, probe, idle, both (the first two) or all (the default: every one).
SUITE is a folder of Harbor tasks or `builtin` (attacked through real rollouts). Prints, per
suite and harness, how many tasks ran and which fooled the verifier (should be none), then the
tasks that cannot run here with their reason. Exits 1 when any verifier was fooled.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harnesspro.core.records import Task
from harnesspro.harness.adversary import (
    ADVERSARY,
    IDLE,
    LINKER,
    PROBE,
    Attack,
    attack_layout,
    attack_rollout,
)
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.loader import load_suite

HARNESSES = {
    "adversarial": [ADVERSARY],
    "linker": [LINKER],
    "probe": [PROBE],
    "idle": [IDLE],
    "both": [ADVERSARY, LINKER],
    "all": [ADVERSARY, LINKER, PROBE, IDLE],
}


def attack(task: Task, suite: str, harness: Path) -> Attack:
    if suite == "builtin":
        return attack_rollout(task, harness=harness)
    return attack_layout(task, Bubblewrap(), harness=harness)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", choices=sorted(HARNESSES), default="all")
    parser.add_argument("suites", nargs="+")
    args = parser.parse_args(argv)
    fooled_any = False
    for suite in args.suites:
        tasks = load_suite(suite)
        for harness in HARNESSES[args.harness]:
            attacks = [attack(task, suite, harness) for task in tasks]
            ran = [a for a in attacks if a.fooled is not None]
            fooled = [a.task_id for a in ran if a.fooled]
            infra = [a.task_id for a in ran if a.status == "infra_error"]
            fooled_any = fooled_any or bool(fooled) or bool(infra)
            print(
                f"{suite} x {harness.name}: {len(tasks)} tasks, {len(ran)} ran, "
                f"fooled {len(fooled)}: {fooled}; infrastructure errors {len(infra)}: {infra}"
            )
            for skipped in attacks:
                if skipped.fooled is None:
                    print(f"  cannot run: {skipped.task_id}: {skipped.reason[:160]}")
    return 1 if fooled_any else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
