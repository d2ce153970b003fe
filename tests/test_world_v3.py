"""World v3 acts on latent behaviour factors a harness reaches through what the model is
shown, never on the catalog: its source names no catalog mechanism, hook marker or catalog
prompt wording; a free-form change on a factor moves it (and not v2); its knobs do what they
say; its hidden factors show in trajectories and give way to generic relief."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE
from harnesspro.execution.fakes.scripted import ScriptedPolicy
from harnesspro.execution.world.draw import draw_profile
from harnesspro.execution.world.policy import WorldPolicy
from harnesspro.execution.world.profile import WorldProfile
from harnesspro.execution.worlds import draw_salt, make_policy
from tests import world_play
from tests.world_play import make_task, pass_rate, play, reset, trim

# A profile where the context factor is plain to see, and nothing else is in the way.
CONTEXT = draw_profile(11, null_share=0.0, hidden_factors=False).model_copy(
    update={
        "context_gain": 5.0, "context_scale": 1500.0, "slip_logit": -5.0, "explore_mean": 3.0,
        "whole_read": 4.0, "whole_gain": 0.0, "task_sd": 0.0, "task_factor_sd": 0.0,
        "error_use": 0.2, "quiet_share": 0.6, "format_logit": -8.0, "format_context": 0.0,
    }
)  # fmt: skip
SEEDS = range(60)
# The trimming contrast is about +0.23 of the plays at this profile; 200 plays put the +0.10
# bar about three standard deviations below it, whatever path the task lands on.
TRIM_SEEDS = range(200)


@pytest.fixture
def task(tmp_path: Path):  # type: ignore[no-untyped-def]
    return make_task(tmp_path)


def test_trimming_long_tool_output_moves_v3_but_not_v2(task) -> None:  # type: ignore[no-untyped-def]
    """A tool-result policy no catalog entry has (head and tail of long results, its own
    note) shortens the context: world v3 slips less and passes more; world v2 sees the same
    commands' results only through its markers, so its verdicts do not move at all."""
    v3 = WorldPolicy([task], CONTEXT)
    plain, _ = pass_rate(v3, task, TRIM_SEEDS)
    trimmed, _ = pass_rate(v3, task, TRIM_SEEDS, shown=trim)
    assert sum(trimmed) >= sum(plain) + len(TRIM_SEEDS) // 10, (sum(plain), sum(trimmed))
    v2 = ScriptedPolicy([task], DEFAULT_PROFILE)
    plain2, _ = pass_rate(v2, task, SEEDS)
    trimmed2, _ = pass_rate(v2, task, SEEDS, shown=trim)
    assert plain2 == trimmed2


def test_common_draws_off_makes_identical_candidates_measure_differently(task) -> None:  # type: ignore[no-untyped-def]
    def measured(profile: WorldProfile, candidate: str) -> list[list[str]]:
        policy = make_policy([task], profile, draw_salt(profile, candidate, "same-tree-key"))
        out = []
        for seed in range(20):
            reset(task)
            out.append(play(policy, task, f"s:{seed}")[0])
        return out

    shared = draw_profile(3, common_draws=True)
    assert measured(shared, "c001") == measured(shared, "c002")
    fresh = draw_profile(3, common_draws=False)
    assert measured(fresh, "c001") != measured(fresh, "c002")
    assert measured(fresh, "c001") == measured(fresh, "c001")  # still reproducible


def test_profiles_are_reproducible_and_knobs_draw_apart() -> None:
    assert draw_profile(5) == draw_profile(5)
    assert draw_profile(5) != draw_profile(6)
    nulls = draw_profile(5, null_share=1.0)
    assert nulls.check_gain == nulls.focus_gain == nulls.brief_gain == nulls.stop_gain == 0.0
    off = draw_profile(5, hidden_factors=False)
    assert off.idle == off.repeat == off.script_slip == off.near_miss == 0.0
    # a knob's own stream: the other draws stay as they were
    assert off.slip_logit == draw_profile(5).slip_logit


def test_null_share_one_makes_an_instruction_only_change_do_nothing(task) -> None:  # type: ignore[no-untyped-def]
    """Two system prompts of the same length, one a plain sentence, the other an emphatic
    instruction to check one's work and be brief: with every sensitivity null they play
    identically; with none null they do not."""
    plain = f"{world_play.SYSTEM} Please go ahead with the work now."
    asked = f"{world_play.SYSTEM} ALWAYS CHECK YOUR WORK! Be brief."
    asked = asked.ljust(len(plain))
    assert len(plain) == len(asked)

    def trajectories(profile: WorldProfile, system: str) -> list[list[str]]:
        policy = WorldPolicy([task], profile)
        out = []
        for seed in range(30):
            reset(task)
            out.append(play(policy, task, f"s:{seed}", system=system)[0])
        return out

    null = draw_profile(8, null_share=1.0)
    assert trajectories(null, plain) == trajectories(null, asked)
    live = draw_profile(8, null_share=0.0).model_copy(update={"check_gain": 3.0})
    assert trajectories(live, plain) != trajectories(live, asked)


def test_the_repeat_factor_shows_and_a_generic_remark_relieves_it(task) -> None:  # type: ignore[no-untyped-def]
    """Hidden factor (c): it sends the same failing command again; a tool result that says
    the command was already run (no marker of any hook) breaks the loop."""
    repeater = draw_profile(2, null_share=0.0).model_copy(
        update={"repeat": 0.95, "slip_logit": 0.5, "quiet_share": 0.0, "error_use": 0.0,
                "temperature_repeat": 0.0, "script_slip": 0.0, "near_miss": 0.0, "idle": 0.0}
    )  # fmt: skip
    policy = WorldPolicy([task], repeater)

    def told(text: str, seen: list[str] = []) -> str:  # noqa: B006 - the loop's memory
        seen.append(text)
        return f"{text}\n(You already ran this same command.)" if seen.count(text) > 1 else text

    def longest_run(commands: list[str]) -> int:
        best = run = 1
        for a, b in zip(commands, commands[1:], strict=False):
            run = run + 1 if a == b else 1
            best = max(best, run)
        return best

    plain = []
    relieved = []
    for seed in range(20):
        reset(task)
        plain.append(longest_run(play(policy, task, f"s:{seed}", max_steps=40)[0]))
        reset(task)
        relieved.append(longest_run(play(policy, task, f"s:{seed}", shown=told, max_steps=40)[0]))
    assert max(plain) >= 4
    assert sum(relieved) < sum(plain)


def test_the_idle_factor_shows_and_a_done_remark_relieves_it(task) -> None:  # type: ignore[no-untyped-def]
    """Hidden factor (a): after the work it issues no-op commands instead of answering; a
    harness that says the work looks done makes it answer."""
    idler = draw_profile(4, null_share=0.0).model_copy(
        update={"idle": 1.0, "idle_wake": 0.05, "stop_gain": 0.0, "slip_logit": -8.0,
                "format_logit": -8.0, "near_miss": 0.0, "script_slip": 0.0}
    )  # fmt: skip
    policy = WorldPolicy([task], idler)

    def noted(text: str) -> str:
        return (
            f"{text}\nIt looks done: answer now."
            if text.startswith("(no output, exit code 0")
            else text
        )

    idle_plain = idle_told = 0
    for seed in range(10):
        reset(task)
        idle_plain += sum(
            c in ("exit 0", "true", ":", "echo done") for c in play(policy, task, f"s:{seed}")[0]
        )
        reset(task)
        commands = play(policy, task, f"s:{seed}", shown=noted)[0]
        idle_told += sum(c in ("exit 0", "true", ":", "echo done") for c in commands)
    assert idle_plain >= 30
    assert idle_told < idle_plain / 3


def test_the_near_miss_factor_is_quiet_and_a_repeated_path_relieves_it(task) -> None:  # type: ignore[no-untyped-def]
    """Hidden factor (d): an output under a near name fails quietly; a system prompt that
    names the exact output paths relieves it."""
    misser = draw_profile(6, null_share=0.0).model_copy(
        update={"near_miss": 0.5, "path_gain": 1.0, "slip_logit": -8.0, "check_logit": -8.0,
                "format_logit": -8.0, "idle": 0.0, "script_slip": 0.0, "repeat": 0.0}
    )  # fmt: skip
    policy = WorldPolicy([task], misser)
    plain, _ = pass_rate(policy, task, range(30))
    naming = f"{world_play.SYSTEM} The outputs go to exactly " + ", ".join(task.outputs) + "."
    named, _ = pass_rate(policy, task, range(30), system=naming)
    assert sum(plain) <= 24
    assert sum(named) == 30


def test_effort_costs_reasoning_tokens_and_saturates() -> None:
    policy = WorldPolicy([], draw_profile(1))
    tokens = [policy.reasoning_tokens({"reasoning_effort": e}) for e in ("low", "medium", "high")]
    assert 0 < tokens[0] < tokens[1] < tokens[2]
    assert policy.reasoning_tokens({}) == 0


def test_a_malformed_call_is_resent_when_the_harness_says_it_could_not_parse_it(task) -> None:  # type: ignore[no-untyped-def]
    fragile = draw_profile(9).model_copy(update={"format_logit": 0.0, "format_fix": 1.0})
    policy = WorldPolicy([task], fragile)
    reset(task)
    commands, _ = play(policy, task, "s:1")
    assert commands, "the well-formed resends ran"


def test_profile_record_is_strict() -> None:
    with pytest.raises(ValueError):
        WorldProfile.model_validate({"no_such_field": 1})
    profile = WorldProfile()
    with pytest.raises(ValidationError):
        profile.idle = 0.5  # type: ignore[misc]
