"""The scripted offline policy: a documented behaviour model, not an LLM.

It answers chat-completion requests for the built-in tasks the way a capable but imperfect
model would. It knows each task's reference solution (the trusted side; the harness never
sees it) and follows it with seeded imperfections. Its behaviour depends only on what a real
model sees - the messages, the offered tools and the request parameters - never on harness
files.

Behaviour model, per rollout (the random draws come from a sampling seed the gateway passes
in, fixed per task and attempt, so candidates are compared on common random numbers):

1. The task is recognised by its instruction text inside a user message. An unknown task
   gets one look around (`ls -la`) and then a give-up answer.
2. Exploration: 1-3 look-around commands (`ls`, `cat`/`head`/`wc` of input files) before
   acting; 0-1 when the prompts ask to avoid unnecessary exploration; `head` instead of
   `cat` when the prompts say to read files with head/wc "instead of `cat`".
3. Each reference step is executed in order. With probability `p_slip` (0.30; x1.6 at
   `reasoning_effort: low`, x0.5 at `high`) the step is first issued with a typo in its
   first command, which fails. The slip is noticed at once with probability 0.4 (0.7 when
   the prompts ask to verify work) and the step is redone; otherwise it stays broken.
4. After a step, with probability 0.3, a redundant re-check (`ls`/`cat` again).
5. Before submitting, with probability 0.25 (0.9 when the prompts ask to verify work), a
   verification command runs and, if a step is still broken, every step from the first
   broken one onwards is rerun (later steps may have used its missing output).
6. Then it submits: a reply without a tool call.
7. Once a tool result contains a notice asking to avoid redundant checks or to focus on
   finishing, the remaining exploration and re-checks are skipped. A tool result saying the
   call was blocked makes it submit at once.
8. Each reply carries reasoning text of about 60 words (12 when the system prompt asks for
   concise replies; x0.5 at low effort, x2 at high effort). High effort also reports 150
   reasoning tokens per call.
9. Without a `tools` list in the request it answers with one fenced ```bash block instead.
10. With probability 0.03 a tool call's arguments are truncated, invalid JSON. If the harness
    answers `[repair] ...` the same call is resent intact; any other answer (an error) counts
    as the action having been taken, so that step is lost.
11. A submission refused with `[guard] ...` makes it verify and rerun every step from the
    first one it slipped on (unless it had already planned a verification).
12. "Only N steps left: submit your best work now" acts like a finishing notice (7).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harnesspro.records import Task
from harnesspro.tasks.loader import reference_steps
from harnesspro.tasks.runtime import input_files

VOCAB = [
    "inspect",
    "the",
    "files",
    "first",
    "then",
    "apply",
    "the",
    "change",
    "carefully",
    "and",
    "confirm",
    "the",
    "output",
    "matches",
    "the",
    "requested",
    "format",
    "before",
    "moving",
    "on",
    "to",
    "the",
    "next",
    "part",
    "of",
    "the",
    "task",
]
PATH_RE = re.compile(r"`(/[^`\s]+)`")
P_MALFORMED = 0.03  # per tool call: arguments that are not valid JSON


@dataclass(frozen=True)
class TaskScript:
    """What the policy knows about one task (trusted side only)."""

    instruction: str
    workdir: str
    steps: tuple[str, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


@dataclass(frozen=True)
class Action:
    kind: str  # explore | slip | step | recheck | verify
    command: str


def script_for(task: Task) -> TaskScript:
    """Build the policy's knowledge of a task from its folder."""
    # Where the image puts them (the Dockerfile's COPY lines), not only the working folder.
    files = input_files(task)
    mentioned = PATH_RE.findall(task.instruction)
    return TaskScript(
        instruction=task.instruction,
        workdir=task.workdir,
        steps=tuple(reference_steps(task)),
        inputs=files,
        outputs=tuple(dict.fromkeys(p for p in mentioned if p not in files)),
    )


def _typo(step: str) -> str:
    first = step.splitlines()[0]
    word, _, rest = first.partition(" ")
    return f"{word}{word[-1:]}x {rest}".rstrip()


def _look(rng: random.Random, script: TaskScript, skim: bool = False) -> str:
    u, v = rng.random(), rng.random()
    if not script.inputs or u < 0.3:
        return f"ls -la {script.workdir}"
    path = script.inputs[int(v * len(script.inputs))]
    reader = "head -n 40" if skim else "cat"
    return [f"{reader} {path}", f"head -n 40 {path}", f"wc -l {path}"][int(u * 10) % 3]


def _stream(seed: str, *purpose: object) -> random.Random:
    """An independent random stream per decision, so that changing one decision's odds (a
    different prompt, say) leaves every other draw as it was: common random numbers."""
    return random.Random(":".join(map(str, (seed, *purpose))))


@dataclass(frozen=True)
class Traits:
    """What the policy reads off the visible prompt and parameters."""

    concise: bool
    verify: bool
    direct: bool
    effort: str
    skim: bool = False

    @classmethod
    def read(cls, request: Mapping[str, Any]) -> Traits:
        messages = request.get("messages", [])
        system = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
        prompts = system + " ".join(
            str(m.get("content", "")) for m in messages[:2] if m.get("role") == "user"
        )
        low = prompts.lower()
        return cls(
            concise="concise" in system.lower(),
            verify="verify" in low,
            direct="avoid unnecessary exploration" in low,
            effort=str(request.get("reasoning_effort") or "medium"),
            skim="instead of `cat`" in low,
        )


def plan_actions(script: TaskScript, traits: Traits, seed: str) -> list[Action]:
    """The whole rollout's intended actions, drawn once from the sampling seed."""
    p_slip = 0.3 * {"low": 1.6, "high": 0.5}.get(traits.effort, 1.0)
    p_notice = 0.7 if traits.verify else 0.4
    u = _stream(seed, "explore").random()
    n_explore = int(u * 2) if traits.direct else 1 + int(u * 3)
    looks = [_look(_stream(seed, "look", i), script, traits.skim) for i in range(n_explore)]
    actions = [Action("explore", command) for command in looks]
    broken: list[int] = []
    for i, step in enumerate(script.steps):
        rng = _stream(seed, "step", i)
        slip, notice, recheck = rng.random(), rng.random(), rng.random()
        if slip < p_slip:
            actions.append(Action("slip", _typo(step)))
            if notice < p_notice:
                actions.append(Action("step", step))
            else:
                broken.append(i)
        else:
            actions.append(Action("step", step))
        if recheck < 0.3:
            actions.append(
                Action("recheck", _look(_stream(seed, "recheck", i), script, traits.skim))
            )
    if _stream(seed, "verify").random() < (0.9 if traits.verify else 0.25):
        outputs = " ".join(script.outputs) or script.workdir
        actions.append(Action("verify", f"ls -la {script.workdir} && head -n 20 {outputs}"))
        if broken:  # later steps may have built on the broken one: rerun from there
            actions += [Action("step", step) for step in script.steps[broken[0] :]]
    return actions


@dataclass(frozen=True)
class History:
    """What the conversation so far says about the rollout's progress."""

    done: int  # actions carried out (a call answered with a repair request does not count)
    results: tuple[str, ...]  # the results of those actions, in order
    repair_pending: bool  # the harness asked to resend the last call
    guarded: bool  # the harness refused a submission
    last: str  # the latest tool result or user turn


def read_history(messages: Sequence[Mapping[str, Any]], fenced: bool) -> History:
    done, results, pending = 0, [], False
    for i, message in enumerate(messages):
        acted = message.get("role") == "assistant" and (
            "```" in str(message.get("content")) if fenced else bool(message.get("tool_calls"))
        )
        if not acted:
            continue
        follow = messages[i + 1] if i + 1 < len(messages) else {}
        answer = str(follow.get("content", ""))
        pending = answer.startswith("[repair]")
        if follow and not pending:
            done += 1
            results.append(answer)
    turns = [str(m.get("content", "")) for m in messages[2:] if m.get("role") in ("user", "tool")]
    return History(
        done=done,
        results=tuple(results),
        repair_pending=pending,
        guarded=any(t.startswith("[guard]") for t in turns),
        last=turns[-1] if turns else "",
    )


STOP_LOOKING = re.compile(r"redundant|focus on finishing|submit your best", re.I)


def _effective(actions: list[Action], results: Sequence[str]) -> list[Action]:
    """Drop exploration and re-checks issued after a notice asked to stop them."""
    notice_at = next((i for i, text in enumerate(results) if STOP_LOOKING.search(text)), None)
    kept: list[Action] = []
    for action in actions:
        late = notice_at is not None and len(kept) > notice_at
        if late and action.kind in ("explore", "recheck"):
            continue
        kept.append(action)
    return kept


def _after_refusal(actions: list[Action], script: TaskScript) -> list[Action]:
    """A refused submission makes it check its work and rerun what it broke."""
    if any(a.kind == "verify" for a in actions):
        return actions
    slipped = [i for i, step in enumerate(script.steps) if Action("slip", _typo(step)) in actions]
    redo = [Action("step", step) for step in script.steps[slipped[0] :]] if slipped else []
    return [*actions, Action("verify", f"ls -la {script.workdir}"), *redo]


def _tool_call(command: str, call_id: str, malformed: bool) -> dict[str, Any]:
    arguments = json.dumps({"command": command})
    if malformed:  # a truncated JSON object, as models sometimes emit
        arguments = arguments[:-2]
    return {"id": call_id, "type": "function", "function": {"name": "bash", "arguments": arguments}}


class ScriptedPolicy:
    """Answers chat requests for known tasks following the behaviour model above."""

    def __init__(self, scripts: Sequence[TaskScript]) -> None:
        self.scripts = list(scripts)

    def _find(self, messages: Sequence[Mapping[str, Any]]) -> TaskScript | None:
        users = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
        return next((s for s in self.scripts if s.instruction in users), None)

    def respond(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        """One assistant message (OpenAI shape) for this request."""
        messages = request.get("messages", [])
        fenced = not request.get("tools")
        traits = Traits.read(request)
        script = self._find(messages)
        seed = hashlib.sha256(
            f"{sampling_seed}:{script and script.instruction}".encode()
        ).hexdigest()
        history = read_history(messages, fenced)
        actions = plan_actions(script, traits, seed) if script else [Action("explore", "ls -la")]
        if script and history.guarded:
            actions = _after_refusal(actions, script)
        todo = _effective(actions, history.results)
        done = history.done
        words = 12 if traits.concise else 60
        words = int(words * {"low": 0.5, "high": 2.0}.get(traits.effort, 1.0))
        text_rng = _stream(seed, "text", done)
        text = " ".join(text_rng.choice(VOCAB) for _ in range(words))
        if "blocked" in history.last.lower() or done >= len(todo):
            return {"role": "assistant", "content": f"{text}\nThe task is complete."}
        command = todo[done].command
        if fenced:
            return {"role": "assistant", "content": f"{text}\n```bash\n{command}\n```"}
        malformed = (
            not history.repair_pending
            and _stream(seed, "json", done, len(messages)).random() < P_MALFORMED
        )
        call = _tool_call(command, f"call_{done}_{len(messages)}_{seed[:6]}", malformed)
        return {"role": "assistant", "content": text, "tool_calls": [call]}
