"""Run every external task's verifier with a do-nothing agent, or say why it needs a container.

Usage: .venv/bin/python scripts/check_external_tasks.py [SUITE_DIR] [--details FILE]

SUITE_DIR defaults to ../shared/datasets/termigen-dev. Prints one line per task and the counts:
ran with reward 0, needs container (with reasons), and anything else (which is a bug to fix).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.checktask import Validation, validate_task
from harnesspro.tasks.loader import scan_suite

DEFAULT_SUITE = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "termigen-dev"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", nargs="?", type=Path, default=DEFAULT_SUITE)
    parser.add_argument("--details", type=Path, help="write each verifier's output tail here")
    args = parser.parse_args()
    if not args.suite.is_dir():
        print(f"{args.suite}: no such task folder", file=sys.stderr)
        return 2
    tasks, problems = scan_suite(args.suite)
    for problem in problems:
        print(f"malformed: {problem}")
    started = time.monotonic()
    sandbox = Bubblewrap()
    results: list[Validation] = []
    for task in tasks:
        results.append(validate_task(task, sandbox))
        print(f"{results[-1].status:16} {task.id}: {results[-1].reason}", flush=True)
    if args.details:
        args.details.write_text("".join(_detail(v) for v in results))
    _summary(results, len(problems), time.monotonic() - started)
    unexpected = [v for v in results if v.status not in ("ok", "unproven", "needs container")]
    return 1 if unexpected or problems else 0


def _detail(v: Validation) -> str:
    output = v.idle.output if v.idle else ""
    return f"===== {v.task_id} [{v.status}] {v.reason}\n{output}\n"


def _summary(results: list[Validation], malformed: int, seconds: float) -> None:
    ran = sum(1 for v in results if v.status in ("ok", "unproven"))
    proven = sum(1 for v in results if v.status == "ok")
    needs = [v for v in results if v.status == "needs container"]
    other = [v for v in results if v.status not in ("ok", "unproven", "needs container")]
    print(f"\n{len(results) + malformed} tasks in {seconds:.0f} s")
    print(f"ran the verifier with a do-nothing agent, reward 0: {ran}")
    print(f"verifiers shown to pass (reference solution): {proven}; unproven: {ran - proven}")
    print(f"needs container: {len(needs)}")
    for reason, count in Counter(v.reason for v in needs).most_common():
        print(f"  {count:3} {reason}")
    print(f"other (malformed, invalid or runner errors): {len(other) + malformed}")
    for v in other:
        print(f"  {v.task_id}: {v.status}: {v.reason}")


if __name__ == "__main__":
    sys.exit(main())
