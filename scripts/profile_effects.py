"""What each prompt-level lever does under a few behaviour profiles, on the policy alone (no
sandbox): simulated pass rate (every reference step ends up run) and model calls per rollout
on the built-in tasks, with the seed's prompts plus one lever, against the seed alone.

    PYTHONPATH=$PWD .venv/bin/python scripts/profile_effects.py [PROFILE_SEED ...]

A quick look at a profile's hidden sensitivities, for whoever sets up a benchmark; the real
effect of a harness change is measured by rollouts.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any

from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE, BehaviourProfile
from harnesspro.execution.fakes.sampling import sample_profile
from harnesspro.execution.fakes.scripted import ScriptedPolicy
from harnesspro.execution.fakes.task_script import TaskScript, script_for
from harnesspro.harness.mechanisms.catalog import CONCISE_PROMPT, SKIM_PROMPT, VERIFY_PROMPT
from harnesspro.run.context import seed_template
from harnesspro.tasks.loader import load_suite

TOOLS = [{"type": "function", "function": {"name": "bash"}}]
# name -> (prompt added, request parameters, the profile levers it touches)
LEVERS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "verify prompt": (VERIFY_PROMPT, {}, ("verification",)),
    "concise prompt": (CONCISE_PROMPT, {}, ("concision", "exploration")),
    "skim prompt": (SKIM_PROMPT, {}, ("skimming",)),
    "low effort": ("", {"reasoning_effort": "low"}, ("effort",)),
    "high effort": ("", {"reasoning_effort": "high"}, ("effort",)),
}


def play(
    policy: ScriptedPolicy, script: TaskScript, system: str, seed: str, **extra: Any
) -> tuple[bool, int]:
    """(every step ran, model calls) for one simulated rollout; tool results are 'ok'."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": script.instruction},
    ]
    commands = []
    for calls in range(1, 80):
        reply = policy.respond({"messages": messages, "tools": TOOLS, **extra}, seed)
        if not reply.get("tool_calls"):
            return all(step in commands for step in script.steps), calls
        messages.append(reply)
        call = reply["tool_calls"][0]
        with contextlib.suppress(ValueError):  # a malformed call runs nothing
            commands.append(json.loads(call["function"]["arguments"])["command"])
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": "ok"})
    return False, 80


def rates(
    profile: BehaviourProfile, system: str, scripts: list[TaskScript], **extra: Any
) -> tuple[float, float]:
    runs = [
        play(ScriptedPolicy([s], profile), s, system, f"e{a}", **extra)
        for s in scripts
        for a in range(8)
    ]
    return sum(p for p, _ in runs) / len(runs), sum(c for _, c in runs) / len(runs)


def main() -> None:
    seeds = [int(s) for s in sys.argv[1:]] or [1, 2, 3]
    scripts = [script_for(t) for t in load_suite("builtin")]
    seed_prompt = (seed_template() / "prompts" / "system.md").read_text()
    for profile in [DEFAULT_PROFILE, *map(sample_profile, seeds)]:
        base_pass, base_calls = rates(profile, seed_prompt, scripts)
        flag = f" misleads on {', '.join(profile.misleads)}" if profile.misleading else ""
        print(f"{profile.name}: seed harness pass {base_pass:.2f}, {base_calls:.1f} calls{flag}")
        for lever, (prompt, extra, touches) in LEVERS.items():
            p, c = rates(profile, f"{seed_prompt}\n{prompt}", scripts, **extra)
            modes = ", ".join(f"{t} {profile.modes.get(t, '?')}" for t in touches)
            print(f"  {lever:15} pass {p - base_pass:+.2f}  calls {c - base_calls:+.1f}  ({modes})")


if __name__ == "__main__":
    main()
