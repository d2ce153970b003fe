"""The judgement reads the gateway's chat log and the rollout's status, never the harness's
own trajectory: a harness that rewrites its trajectory clean gains nothing."""

from __future__ import annotations

import json
from typing import Any

from harnesspro.evaluation.scoring import PendingRollout, verdicts
from harnesspro.execution.gateway.chatlog import ChatLog
from harnesspro.improvers.testsynth.judge import conversation, judge, last_output

SYSTEM = {"role": "system", "content": "You are an agent."}
TASK = {"role": "user", "content": "Count the words of notes.txt into count.txt."}
CALL = {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "type": "function",
        "function": {"name": "bash", "arguments": '{"command": "wc -w notes.txt"}'}}]}  # fmt: skip
DONE = {"role": "assistant", "content": "Done."}


def _log(last_output: str, final: dict[str, Any] = DONE) -> str:
    """Two calls of one rollout as the gateway logs them: a command, then the final reply."""
    log = ChatLog()
    log.add("t", {"messages": [SYSTEM, TASK]}, CALL)
    shown = {"role": "tool", "tool_call_id": "1", "content": last_output}
    log.add("t", {"messages": [SYSTEM, TASK, CALL, shown]}, final)
    return "\n".join(log.lines)


CLEAN_TRAJECTORY = "\n".join(
    json.dumps(e) for e in ({"type": "tool_result", "output": "12"}, {"type": "submit"})
)


def test_the_history_is_rebuilt_from_the_log_s_prefixes() -> None:
    talk = conversation(_log("12 notes.txt"))
    assert talk is not None and talk.reply == DONE
    assert [m["role"] for m in talk.messages] == ["system", "user", "assistant", "tool"]
    assert last_output(talk) == "12 notes.txt"


def test_a_clean_ending_passes_and_a_failure_shown_to_the_model_fails() -> None:
    assert judge(_log("12 notes.txt"), "ok")
    assert not judge(_log("bash: wc: command not found"), "ok")
    assert not judge(_log("12 notes.txt"), "budget_exhausted")  # did not end on its own
    assert not judge(_log("12 notes.txt", final=CALL), "ok")  # still asking for a tool
    assert not judge("", "ok")  # no call at all
    assert not judge("not json", "ok")


def test_a_planted_trajectory_gains_nothing() -> None:
    # The harness wrote a clean trajectory ending in `submit`; the gateway saw the model shown
    # a traceback last. The judgement follows the gateway.
    planted = PendingRollout(
        "k", "task", _log("Traceback (most recent call last):\n  ..."), "ok", None
    )
    assert CLEAN_TRAJECTORY  # what the harness claims; the judgement never reads it
    assert verdicts([planted], {}, sandbox=None, judged=True, judge_only=True) == {"k": False}  # type: ignore[arg-type]
    honest = PendingRollout("k", "task", _log("12"), "ok", None)
    assert verdicts([honest], {}, sandbox=None, judged=True, judge_only=True) == {"k": True}  # type: ignore[arg-type]
