"""The shipped adversarial harness against every task of one or more Harbor suites (the full
sweep; `make test` attacks every third task of the external dev sets).

Usage: .venv/bin/python scripts/adversary_sweep.py SUITE_DIR [SUITE_DIR ...]
Prints, per suite, how many tasks ran and which fooled the verifier (should be none), then
the tasks that cannot run here with their reason. Exits 1 when any verifier was fooled.
"""

from __future__ import annotations

import sys

from harnesspro.sandbox import Bubblewrap
from harnesspro.tasks.adversary import attack_layout
from harnesspro.tasks.loader import load_suite


def main(suites: list[str]) -> int:
    fooled_any = False
    for suite in suites:
        tasks = load_suite(suite)
        attacks = [attack_layout(task, Bubblewrap()) for task in tasks]
        ran = [a for a in attacks if a.fooled is not None]
        fooled = [a.task_id for a in ran if a.fooled]
        fooled_any = fooled_any or bool(fooled)
        print(f"{suite}: {len(tasks)} tasks, {len(ran)} ran, fooled {len(fooled)}: {fooled}")
        for attack in attacks:
            if attack.fooled is None:
                print(f"  cannot run: {attack.task_id}: {attack.reason[:160]}")
    return 1 if fooled_any else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
