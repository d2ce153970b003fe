"""The scripted policy follows its documented behaviour model: empirical rates over many
sampling seeds match the profile's parameters within binomial tolerance, computed here by
hand from the model in the module docstring (not from the policy's own code)."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE, BehaviourProfile
from harnesspro.execution.fakes.scripted import ScriptedPolicy
from harnesspro.execution.fakes.task_script import TaskScript
from harnesspro.execution.gateway.upstream import ScriptedUpstream

STEPS = tuple(f"echo part{i} > /workspace/out{i}.txt" for i in range(6))
SCRIPT = TaskScript(
    instruction="Write the six parts into `/workspace/out0.txt` and its siblings.",
    workdir="/workspace",
    steps=STEPS,
    inputs=("/workspace/in.txt",),
    outputs=("/workspace/out0.txt",),
    category="text-processing",
    difficulty="hard",
)
TOOLS = [{"type": "function", "function": {"name": "bash"}}]
READS = ("ls", "cat", "head", "wc", "sed")
# A quiet profile: no exploration, re-checks or verification unless a test turns them on.
QUIET = DEFAULT_PROFILE.model_copy(
    update={"explore": (0, 0), "p_recheck": 0.0, "p_verify": 0.0, "p_malformed": 0.0}
)


def within(hits: int, n: int, p: float) -> bool:
    """hits/n agrees with p within four binomial standard deviations (plus one count)."""
    return abs(hits - n * p) <= 4 * math.sqrt(n * p * (1 - p)) + 1


def request(
    system: str, history: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": SCRIPT.instruction},
    ]
    return {"messages": messages + (history or []), "tools": TOOLS, **extra}


def drive(
    policy: ScriptedPolicy,
    system: str,
    seed: str,
    output: str = "ok",
    repair: bool = True,
    **extra: Any,
) -> list[str]:
    """Play a whole rollout like a harness would; returns the commands run."""
    history: list[dict[str, Any]] = []
    commands = []
    for _ in range(80):
        reply = policy.respond(request(system, history, **extra), seed)
        if not reply.get("tool_calls"):
            return commands
        call = reply["tool_calls"][0]
        try:
            commands.append(json.loads(call["function"]["arguments"])["command"])
            answer = output
        except ValueError:
            answer = "[repair] resend with valid JSON" if repair else "error: not JSON"
        history += [reply, {"role": "tool", "tool_call_id": call["id"], "content": answer}]
    raise AssertionError("the policy never submitted")


def is_slip(command: str) -> bool:
    return bool(command) and command not in STEPS and command.split()[0] not in READS


def slipped_step(command: str) -> str:
    """The step a slip garbled: the same command with a different first word."""
    return next(s for s in STEPS if s.split(" ", 1)[1] == command.split(" ", 1)[1])


def first_attempts(commands: list[str]) -> list[tuple[bool, bool]]:
    """(slipped, redone at once) for each step's first attempt."""
    out = []
    for i, command in enumerate(commands):
        after = commands[i + 1] if i + 1 < len(commands) else ""
        before = commands[i - 1] if i else ""
        if is_slip(command):
            out.append((True, after == slipped_step(command)))
        elif command in STEPS and not (is_slip(before) and slipped_step(before) == command):
            out.append((False, False))
    return out


def slip_stats(
    profile: BehaviourProfile, system: str, n: int, script: TaskScript = SCRIPT, **extra: Any
) -> tuple[int, int]:
    policy = ScriptedPolicy([script], profile)
    tries = [t for s in range(n) for t in first_attempts(drive(policy, system, f"s{s}", **extra))]
    return sum(slipped for slipped, _ in tries), len(tries)


def test_slip_and_recovery_rates_match_the_profile() -> None:
    update = {"p_slip": 0.2, "p_notice": 0.5, "verify_notice": 0.9, "verify_p": 0.0}
    update |= {"hint_notice": 0.75}
    profile = QUIET.model_copy(update=update)
    policy = ScriptedPolicy([SCRIPT], profile)
    hint = "sh: not found\n\n[hint] That command failed: fix it and run it again."
    cases = (("plain", "ok", 0.5), ("Double-check your output.", "ok", 0.9), ("x", hint, 0.75))
    for system, output, p_notice in cases:
        runs = [drive(policy, system, f"r{s}", output=output) for s in range(150)]
        tries = [t for run in runs for t in first_attempts(run)]
        slips = [redone for slipped, redone in tries if slipped]
        assert len(tries) == 150 * len(STEPS)
        assert within(len(slips), len(tries), 0.2)
        assert within(sum(slips), len(slips), p_notice)


def test_effort_matters_more_on_hard_tasks() -> None:
    # hard: 0.4 * 0.5 ** 2 = 0.1; the same task called easy: 0.4 * 0.5 ** 0.5 = 0.283
    weights = {"easy": 0.5, "medium": 1.0, "hard": 2.0}
    profile = QUIET.model_copy(update={"p_slip": 0.4, "difficulty_weight": weights})
    hits, n = slip_stats(profile, "plain", 120, reasoning_effort="high")
    assert within(hits, n, 0.1)
    easy = dataclasses.replace(SCRIPT, difficulty="easy")
    hits, n = slip_stats(profile, "plain", 120, easy, reasoning_effort="high")
    assert within(hits, n, 0.4 * 0.5**0.5)


def test_concise_prompts_can_raise_the_slip_rate() -> None:
    profile = QUIET.model_copy(update={"p_slip": 0.15, "concise_slip": 2.0})
    hits, n = slip_stats(profile, "Keep your replies short.", 120)
    assert within(hits, n, 0.3)


def test_compression_hides_what_some_categories_need() -> None:
    profile = QUIET.model_copy(
        update={
            "p_slip": 0.1,
            "explore": (1, 1),
            "needs_full_view": ("text-processing",),
            "hidden_slip": 3.0,
        }
    )
    folded = "line 1\n[... 80 lines (3000 characters) omitted ...]\nline 99"
    hits, n = slip_stats(profile, "plain", 120, output=folded)
    assert within(hits, n, 0.3)  # every step comes after the folded read
    other = profile.model_copy(update={"needs_full_view": ("git",)})
    hits, n = slip_stats(other, "plain", 120, output=folded)
    assert within(hits, n, 0.1)


def test_a_profile_that_rereads_folded_results_spends_a_call_and_sees_it_all() -> None:
    profile = QUIET.model_copy(
        update={"explore": (1, 1), "needs_full_view": ("text-processing",), "hidden_slip": 9.0}
    )
    rereads = profile.model_copy(update={"reread_folded": 1.0, "p_slip": 0.0})
    folded = "[... 80 lines (3000 characters) omitted ...]"
    commands = drive(ScriptedPolicy([SCRIPT], rereads), "plain", "f", output=folded)
    assert len(commands) == 1 + 1 + len(STEPS) and commands[1].startswith("sed -n")


def test_words_per_reply_follow_the_profile() -> None:
    profile = QUIET.model_copy(update={"words": 50, "concise_words": 0.2})
    policy = ScriptedPolicy([SCRIPT], profile)
    assert len(policy.respond(request("plain"), "w")["content"].split()) == 50
    assert len(policy.respond(request("Be brief."), "w")["content"].split()) == 10
    high = policy.respond(request("plain", reasoning_effort="high"), "w")["content"]
    assert len(high.split()) == 50 * profile.effort_words["high"]


def test_reasoning_tokens_are_reported_per_effort() -> None:
    profile = QUIET.model_copy(update={"reasoning_tokens": {"low": 5, "high": 321}})
    upstream = ScriptedUpstream(ScriptedPolicy([SCRIPT], profile))
    for effort, tokens in (("high", 321), ("low", 5), ("medium", 0)):
        usage = upstream.complete(request("x", reasoning_effort=effort), "t")["usage"]
        assert usage["completion_tokens_details"]["reasoning_tokens"] == tokens


def test_verification_reads_whole_outputs_under_some_profiles() -> None:
    for full, reader in ((False, "head -n 20"), (True, "cat")):
        update = {"p_verify": 1.0, "verify_full_read": full, "p_slip": 0.0}
        profile = QUIET.model_copy(update=update)
        commands = drive(ScriptedPolicy([SCRIPT], profile), "plain", "v")
        assert commands[-1] == f"ls -la /workspace && {reader} /workspace/out0.txt"


def test_notices_stop_looking_or_make_it_rush() -> None:
    base = DEFAULT_PROFILE.model_copy(update={"explore": (3, 3), "p_recheck": 1.0})
    notice = "ok\n\n[notice] Focus on finishing: verify the outputs and submit."
    stops = base.model_copy(update={"notice_stop": 1.0})
    commands = drive(ScriptedPolicy([SCRIPT], stops), "plain", "n", output=notice)
    assert commands[0].split()[0] in READS
    assert all(c.split()[0] not in READS or "&&" in c for c in commands[1:])
    rush = base.model_copy(update={"notice_rush": 1.0})
    assert len(drive(ScriptedPolicy([SCRIPT], rush), "plain", "n", output=notice)) == 1


def test_malformed_calls_are_resent_after_a_repair_request_and_lost_without() -> None:
    profile = QUIET.model_copy(update={"p_malformed": 0.1, "p_slip": 0.0})
    policy = ScriptedPolicy([SCRIPT], profile)
    seeds = [f"m{i}" for i in range(200)]
    assert all(drive(policy, "plain", s) == list(STEPS) for s in seeds)
    lossy = sum(len(drive(policy, "plain", s, repair=False)) < len(STEPS) for s in seeds)
    assert within(lossy, len(seeds), 1 - 0.9 ** len(STEPS))  # some call of six was broken
    # A profile that resends broken calls broken again pays extra calls, loses nothing.
    stubborn = ScriptedPolicy([SCRIPT], profile.model_copy(update={"repair_fix": 0.5}))
    assert all(drive(stubborn, "plain", s) == list(STEPS) for s in seeds[:50])


def test_a_refused_submission_makes_it_verify_and_redo_unless_the_profile_ignores_it() -> None:
    for redo, expect in ((1.0, True), (0.0, False)):
        policy = ScriptedPolicy([SCRIPT], QUIET.model_copy(update={"guard_redo": redo}))
        history: list[dict[str, Any]] = []
        while (reply := policy.respond(request("plain", history), "g")).get("tool_calls"):
            call = reply["tool_calls"][0]
            history += [reply, {"role": "tool", "tool_call_id": call["id"], "content": "ok"}]
        history += [reply, {"role": "user", "content": "[guard] Submission refused once."}]
        after = policy.respond(request("plain", history), "g")
        assert bool(after.get("tool_calls")) is expect


def test_deterministic_per_sampling_seed_and_common_random_numbers() -> None:
    policy = ScriptedPolicy([SCRIPT])
    assert drive(policy, "plain", "s1") == drive(policy, "plain", "s1")
    assert len({tuple(drive(policy, "plain", f"s{i}")) for i in range(20)}) > 3
    # Concision changes the words, not the draws: the same commands in the same order.
    for i in range(20):
        assert drive(policy, "plain", f"c{i}") == drive(policy, "Be concise.", f"c{i}")


def test_fenced_fallback_and_a_missing_closing_fence() -> None:
    plain = {"messages": request("plain")["messages"]}
    reply = ScriptedPolicy([SCRIPT]).respond(plain, "f")
    assert reply["content"].rstrip().endswith("```") and "tool_calls" not in reply
    broken = ScriptedPolicy([SCRIPT], QUIET.model_copy(update={"fenced_malformed": 1.0}))
    assert broken.respond(plain, "f")["content"].count("```") == 1


def test_blocked_call_submits_and_unknown_task_gives_up() -> None:
    policy = ScriptedPolicy([SCRIPT])
    call = {"id": "1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
    blocked = [
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "1", "content": "Tool call blocked: budget is spent."},
    ]
    assert not policy.respond(request("plain", blocked), "b").get("tool_calls")
    unknown = {"messages": [{"role": "user", "content": "something else"}], "tools": TOOLS}
    assert policy.respond(unknown, "u")["tool_calls"]
