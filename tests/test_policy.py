"""The scripted policy follows its documented behaviour model, deterministically."""

from __future__ import annotations

import json
from typing import Any

from harnesspro.policies.scripted import ScriptedPolicy, TaskScript, Traits, plan_actions

SCRIPT = TaskScript(
    instruction="Sort `/workspace/in.txt` into `/workspace/out.txt`.",
    workdir="/workspace",
    steps=("sort /workspace/in.txt > /workspace/tmp", "mv /workspace/tmp /workspace/out.txt"),
    inputs=("/workspace/in.txt",),
    outputs=("/workspace/out.txt",),
)
TOOLS = [{"type": "function", "function": {"name": "bash"}}]


def request(
    system: str, history: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": SCRIPT.instruction},
    ]
    return {"messages": messages + (history or []), "tools": TOOLS, **extra}


def drive(
    policy: ScriptedPolicy, system: str, seed: str, tool_output: str = "ok", repair: bool = True
) -> list[str]:
    """Play a whole rollout like a harness would; returns the commands run."""
    history: list[dict[str, Any]] = []
    commands = []
    for _ in range(60):
        reply = policy.respond(request(system, history), seed)
        if not reply.get("tool_calls"):
            return commands
        call = reply["tool_calls"][0]
        try:
            commands.append(json.loads(call["function"]["arguments"])["command"])
            answer = tool_output
        except ValueError:
            answer = "[repair] resend with valid JSON" if repair else "error: not JSON"
        history += [reply, {"role": "tool", "tool_call_id": call["id"], "content": answer}]
    raise AssertionError("the policy never submitted")


def test_malformed_calls_are_resent_after_a_repair_request_and_lost_without() -> None:
    policy = ScriptedPolicy([SCRIPT])
    seeds = [f"m{i}" for i in range(200)]
    repaired = [drive(policy, "plain", s) for s in seeds]
    unrepaired = [drive(policy, "plain", s, repair=False) for s in seeds]
    lost = [s for s, a, b in zip(seeds, repaired, unrepaired, strict=True) if len(b) < len(a)]
    assert lost  # some calls were malformed, and without repair their action never ran
    assert all(len(a) >= len(b) for a, b in zip(repaired, unrepaired, strict=True))


def test_a_refused_submission_makes_it_verify_and_redo() -> None:
    policy = ScriptedPolicy([SCRIPT])
    plain = Traits(False, False, False, "medium")
    unverified = [
        seed
        for seed in (f"g{i}" for i in range(400))
        if not any(a.kind == "verify" for a in plan_actions(SCRIPT, plain, _seed(seed)))
    ]
    assert unverified
    for seed in unverified[:10]:
        history: list[dict[str, Any]] = []
        while (reply := policy.respond(request("plain", history), seed)).get("tool_calls"):
            call = reply["tool_calls"][0]
            history += [reply, {"role": "tool", "tool_call_id": call["id"], "content": "ok"}]
        history += [reply, {"role": "user", "content": "[guard] Submission refused once."}]
        after = policy.respond(request("plain", history), seed)
        assert after["tool_calls"][0]["function"]["arguments"].startswith('{"command": "ls -la')


def _seed(sampling_seed: str) -> str:
    import hashlib

    return hashlib.sha256(f"{sampling_seed}:{SCRIPT.instruction}".encode()).hexdigest()


def test_deterministic_per_sampling_seed() -> None:
    policy = ScriptedPolicy([SCRIPT])
    assert drive(policy, "plain", "s1") == drive(policy, "plain", "s1")
    runs = {tuple(drive(policy, "plain", f"s{i}")) for i in range(20)}
    assert len(runs) > 3  # and stochastic across seeds


def test_every_rollout_ends_with_the_reference_steps_done() -> None:
    policy = ScriptedPolicy([SCRIPT])
    for i in range(30):
        commands = drive(policy, "Please verify your work.", f"v{i}")
        assert all(step in commands for step in SCRIPT.steps)


def test_concise_prompt_changes_words_not_the_random_draws() -> None:
    seed = "crn"
    plain = plan_actions(SCRIPT, Traits(False, False, False, "medium"), seed)
    concise = plan_actions(SCRIPT, Traits(True, False, False, "medium"), seed)
    assert plain == concise  # common random numbers: same slips, same checks
    policy = ScriptedPolicy([SCRIPT])
    long = policy.respond(request("plain"), seed)["content"]
    short = policy.respond(request("Be concise."), seed)["content"]
    assert len(short.split()) < len(long.split())


def test_verify_prompt_catches_more_slips() -> None:
    broken = {False: 0, True: 0}
    for verify in (False, True):
        for i in range(300):
            actions = plan_actions(SCRIPT, Traits(False, verify, False, "medium"), f"x{i}")
            last = {a.command: n for n, a in enumerate(actions) if a.kind == "step"}
            slips = [n for n, a in enumerate(actions) if a.kind == "slip"]
            broken[verify] += (
                any(s > max(last.values(), default=-1) for s in slips) or len(last) < 2
            )
    assert broken[True] < broken[False]


def test_notice_stops_rechecks_and_block_submits() -> None:
    policy = ScriptedPolicy([SCRIPT])
    noticed = drive(policy, "plain", "n1", tool_output="ok [notice] avoid redundant checks")
    assert not any(c.startswith(("cat", "head", "wc", "ls")) for c in noticed[1:])
    blocked = policy.respond(
        request(
            "plain",
            [
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": "1",
                            "type": "function",
                            "function": {"name": "bash", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "1", "content": "Tool call blocked."},
            ],
        ),
        "n1",
    )
    assert not blocked.get("tool_calls")


def test_fenced_fallback_without_tools() -> None:
    reply = ScriptedPolicy([SCRIPT]).respond({"messages": request("plain")["messages"]}, "f")
    assert "```bash" in reply["content"] and "tool_calls" not in reply


def test_unknown_task_gives_up() -> None:
    policy = ScriptedPolicy([SCRIPT])
    reply = policy.respond(
        {"messages": [{"role": "user", "content": "something else"}], "tools": TOOLS}, "u"
    )
    assert reply["tool_calls"]
