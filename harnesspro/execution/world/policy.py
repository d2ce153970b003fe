"""World v3's simulated model: answers chat requests for known tasks from latent behaviour
factors (factors.py), with the same interface as the scripted policy of world v2.

A harness reaches it only through what the model is shown and what the loop does: the
messages (prompts, tool results, harness turns, their length), the request's parameters
(`tools` or fenced mode, `max_tokens`, `reasoning_effort`, `temperature`) and the number of
turns the loop allows. Its random draws come from the sampling seed the gateway passes in,
one stream per decision, mixed with a per-rollout salt when the profile turns common draws
off.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from harnesspro.execution.fakes.task_script import VOCAB, TaskScript, stream
from harnesspro.execution.world import moves, signals
from harnesspro.execution.world.conversation import Progress, read_progress
from harnesspro.execution.world.decide import Mover
from harnesspro.execution.world.factors import EFFORT_LEVELS, Factors, Reading, TaskEffects
from harnesspro.execution.world.instructions import prompt_parts, repeats_path, weights
from harnesspro.execution.world.profile import WorldProfile

RAMBLE = 8  # a rambling reply has this many times the words
CHARS_PER_TOKEN = 4


def _effort(request: Mapping[str, Any]) -> int:
    return EFFORT_LEVELS.get(str(request.get("reasoning_effort") or "medium"), 2)


def _temperature(request: Mapping[str, Any]) -> float:
    value = request.get("temperature")
    return float(value) if isinstance(value, int | float) else 1.0


class WorldPolicy:
    """Answers chat requests for known tasks following world v3's factor model."""

    def __init__(
        self, scripts: Sequence[TaskScript], profile: WorldProfile | None = None, salt: str = ""
    ) -> None:
        self.scripts = list(scripts)
        self.profile = profile or WorldProfile()
        self.salt = salt  # mixed into every draw: "" keeps draws common across candidates

    def _find(self, messages: Sequence[Mapping[str, Any]]) -> TaskScript | None:
        users = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
        return next((s for s in self.scripts if s.instruction in users), None)

    def reasoning_tokens(self, request: Mapping[str, Any]) -> int:
        """Hidden reasoning tokens of one call: none unless reasoning effort is asked for, then
        growing as the effort level ** 1.5."""
        if request.get("reasoning_effort") is None:
            return 0
        return round(self.profile.effort_tokens * _effort(request) ** 1.5)

    def _factors(
        self, request: Mapping[str, Any], script: TaskScript, progress: Progress
    ) -> Factors:
        messages = request.get("messages", [])
        parts = prompt_parts(messages, script.instruction)
        # Harness turns after an answer (a refusal, a reminder) are instructions too, the latest.
        parts += [("user", r.result) for r in progress.replies if r.move.kind == "answer"]
        reading = Reading(
            tokens=signals.context_tokens(messages, request.get("tools")),
            weights=weights(parts, self.profile),
            effort=_effort(request),
            temperature=_temperature(request),
        )
        return Factors(self.profile, TaskEffects.of(self.profile, script.instruction), reading)

    def respond(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        """One assistant message (OpenAI shape) for this request."""
        messages = request.get("messages", [])
        script = self._find(messages)
        fenced = not request.get("tools")
        if script is None:  # an unknown task: one look around, then a give-up answer
            looked = any(m.get("role") == "assistant" for m in messages)
            command = None if looked else "ls -la"
            return _render(command, "I could not work out the task.", fenced, None, False)
        instruction = script.instruction
        seed = hashlib.sha256(f"{sampling_seed}:{self.salt}:{instruction}".encode()).hexdigest()
        progress = read_progress(messages, script, fenced)
        factors = self._factors(request, script, progress)
        command = Mover(
            script,
            progress,
            factors,
            seed,
            lambda p: bool(p) and repeats_path(messages, instruction, p),
        ).next_command()
        call = len(progress.replies)
        words = factors.words() * (
            RAMBLE if stream(seed, "ramble", call).random() < self.profile.ramble else 1
        )
        text = " ".join(stream(seed, "text", call).choices(VOCAB, k=max(1, round(words))))
        last = progress.last
        resend = bool(last and last.malformed and signals.unreadable(last.result))
        p_bad = 1 - self.profile.format_fix if resend else factors.malformed()
        bad = stream(seed, "format", call).random() < p_bad
        python = command is not None and moves.classify(script, command).kind == "script"
        return _render(
            command,
            text,
            fenced,
            request.get("max_tokens"),
            bad,
            python and moves.is_python(command or ""),
            f"call_{call}_{seed[:6]}",
        )


def _render(
    command: str | None,
    text: str,
    fenced: bool,
    max_tokens: Any,
    bad: bool,
    python: bool = False,
    call_id: str = "call_0",
) -> dict[str, Any]:
    """The reply as an OpenAI message: text and a tool call (or a fenced block), cut at
    `max_tokens` (a cut text carries no command; a cut command is malformed)."""
    budget = int(max_tokens) if isinstance(max_tokens, int) and max_tokens > 0 else None
    if budget and len(text) >= budget * CHARS_PER_TOKEN:
        return {"role": "assistant", "content": text[: budget * CHARS_PER_TOKEN]}
    if command is None:
        return {"role": "assistant", "content": f"{text}\nThe work is done."}
    if budget and len(text) + len(command) + 48 > budget * CHARS_PER_TOKEN:
        bad = True
    if fenced:
        fence = "" if bad else "\n```"
        return {
            "role": "assistant",
            "content": f"{text}\n```{'python' if python else 'bash'}\n{command}{fence}",
        }
    arguments = json.dumps({"command": command})
    arguments = arguments[:-2] if bad else arguments
    call = {"id": call_id, "type": "function", "function": {"name": "bash", "arguments": arguments}}
    return {"role": "assistant", "content": text, "tool_calls": [call]}
