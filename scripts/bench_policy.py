"""Scripted-policy speed: model calls answered per second, playing whole rollouts of the seed
harness's prompts on every built-in task (tool results carry each task's real input file, so
long conversations are measured, not just short ones). The policy runs in the gateway for
every model call, so this is its share of a scripted rollout's time.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_policy.py [ROLLOUTS_PER_TASK]

It uses only `script_for`, `ScriptedPolicy(...).respond`, so it also runs against older
versions of the policy (PYTHONPATH pointing at an older checkout) for before/after figures.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from harnesspro.execution.fakes.scripted import ScriptedPolicy
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.run.context import seed_template
from harnesspro.tasks.loader import load_suite, workspace_files

TOOLS = [{"type": "function", "function": {"name": "bash"}}]


def rollout(policy: ScriptedPolicy, system: str, user: str, output: str, seed: str) -> int:
    """Answer calls like the seed harness would until the policy submits; the call count."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    for calls in range(1, 60):
        reply = policy.respond({"messages": messages, "tools": TOOLS}, seed)
        if not reply.get("tool_calls"):
            return calls
        messages.append(reply)
        for call in reply["tool_calls"]:
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    return 60


def main() -> None:
    per_task = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    system = (seed_template() / "prompts" / "system.md").read_text()
    template = (seed_template() / "prompts" / "instance.md").read_text()
    calls, start = 0, time.perf_counter()
    for task in load_suite("builtin"):
        policy = ScriptedPolicy([script_for(task)])
        user = template.format(instruction=task.instruction, workdir=task.workdir)
        data = next(iter(workspace_files(task).values()), b"ok")
        output = data.decode(errors="replace")[:4000]  # what a compressed-free `cat` shows
        for attempt in range(per_task):
            calls += rollout(policy, system, user, output, f"bench:{task.id}:{attempt}")
    seconds = time.perf_counter() - start
    print(json.dumps({"calls": calls, "seconds": round(seconds, 2),
                      "calls_per_second": round(calls / seconds, 1)}))  # fmt: skip


if __name__ == "__main__":
    main()
