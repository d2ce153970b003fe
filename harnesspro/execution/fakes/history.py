"""What the conversation so far tells the scripted policy: the tool results it has seen and
the notices, refusals and hints in them, and how it changes its remaining plan after them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harnesspro.execution.fakes import phrases
from harnesspro.execution.fakes.behaviour import BehaviourProfile
from harnesspro.execution.fakes.task_script import Action, stream

NOTICE, FOLDED, HINT = 0, 1, 2  # the signals of phrases.result_signals


@dataclass(frozen=True)
class History:
    """What the conversation so far says about the rollout's progress."""

    done: int  # actions carried out (a call answered with a repair request does not count)
    results: tuple[str, ...]  # the results of those actions, in order
    repair_pending: bool  # the harness asked to resend the last call
    guarded: bool  # the harness refused a submission
    last: str  # the latest tool result or user turn


def read_history(messages: Sequence[Mapping[str, Any]], fenced: bool) -> History:
    """Progress so far, read off the conversation (model 12: repair requests don't count)."""
    done, results, pending = 0, [], False
    for i, message in enumerate(messages):
        acted = message.get("role") == "assistant" and (
            "```" in str(message.get("content")) if fenced else bool(message.get("tool_calls"))
        )
        if not acted:
            continue
        follow = messages[i + 1] if i + 1 < len(messages) else {}
        answer = str(follow.get("content", ""))
        pending = phrases.turn_signals(answer[:300])[0]
        if follow and not pending:
            done += 1
            results.append(answer)
    turns = [str(m.get("content", "")) for m in messages[2:] if m.get("role") in ("user", "tool")]
    return History(
        done=done,
        results=tuple(results),
        repair_pending=pending,
        guarded=any(phrases.turn_signals(t[:300])[1] for t in turns),
        last=turns[-1] if turns else "",
    )


def first_signal(results: Sequence[str], signal: int) -> int | None:
    """The first result showing phrases.result_signals' `signal` (0 notice, 1 folded)."""
    return next((i for i, text in enumerate(results) if phrases.result_signals(text)[signal]), None)


def after_notice(
    actions: list[Action], results: Sequence[str], seed: str, profile: BehaviourProfile
) -> list[Action]:
    """Model 9: after a finishing notice, drop exploration and re-checks, or everything."""
    at = first_signal(results, NOTICE)
    if at is None:
        return actions
    head, tail = actions[: at + 1], actions[at + 1 :]
    if stream(seed, "rush").random() < profile.notice_rush:
        return head
    if stream(seed, "stop").random() < profile.notice_stop:
        tail = [a for a in tail if a.kind not in ("explore", "recheck")]
    return head + tail


def after_refusal(actions: list[Action], steps: tuple[str, ...], workdir: str) -> list[Action]:
    """Model 13: a refused submission makes it check its work and rerun what it broke."""
    if any(a.kind == "verify" for a in actions):
        return actions
    slipped = sorted(a.index for a in actions if a.kind in ("slip", "quiet") and a.index >= 0)
    redo = [Action("step", step) for step in steps[slipped[0] :]] if slipped else []
    return [*actions, Action("verify", f"ls -la {workdir}"), *redo]
