"""The CPU a scripted rollout costs, all processes included: run it under `perf stat`.

Runs 5 warm-up rollouts, then N attempts of the seed harness on each of five built-in tasks
(scripted policy, bubblewrap, the official verifier, no rollout cache) in this process.
`perf stat -e task-clock` counts this process and every process it starts (sandbox,
forwarder, agent, the task's commands). To compare two checkouts, alternate them a few times
and compare medians (the machine is shared):

    for i in 1 2 3 4 5; do for v in /path/old /path/new; do
      PYTHONPATH=$v perf stat -e task-clock -x, .venv/bin/python scripts/rollout_cpu.py 6
    done; done
"""

from __future__ import annotations

import sys

import harnesspro
from harnesspro.core.model_config import ModelConfig, Price
from harnesspro.core.records import RolloutSpec, Task
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.rollout import RolloutInputs, run_rollout
from harnesspro.run.context import seed_template
from harnesspro.tasks.loader import folder_files, load_suite
from harnesspro.tasks.runtime import bundle_task

TASKS = (
    "sales_by_region",
    "backup_rotation_script",
    "git_untrack_generated",
    "merge_booking_intervals",
    "passwd_shell_report",
)
PRICE = Price(input=1.25, cached_input=0.125, output=10.0)


def inputs(task: Task, attempt: int, harness: dict[str, bytes]) -> RolloutInputs:
    return RolloutInputs(
        spec=RolloutSpec(f"k{attempt}", "c000", task.id, attempt, 0),
        harness_files=harness,
        task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
        task=bundle_task(task),
        script=script_for(task),
        model=ModelConfig(),
        price=PRICE,
        timeout_s=60,
        sampling_seed=f"0:{task.id}:{attempt}",
        token=f"token-{attempt}-0123456789abcdef",
    )


def main() -> int:
    attempts = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    suite = {t.id: t for t in load_suite("builtin")}
    harness = folder_files(seed_template())
    for task_id in TASKS:  # warm-up: task folders, tool environments, bytecode
        run_rollout(inputs(suite[task_id], 99, harness))
    for task_id in TASKS:
        for attempt in range(attempts):
            run_rollout(inputs(suite[task_id], attempt, harness))
    print(f"{attempts * len(TASKS)} rollouts with {harnesspro.__file__}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
