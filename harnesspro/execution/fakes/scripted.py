"""The scripted offline policy: a documented behaviour model, not an LLM.

It answers chat-completion requests for the built-in tasks the way a capable but imperfect
model would. It knows each task's reference solution (the trusted side; the harness never
sees it) and follows it with seeded imperfections. Its behaviour depends only on what a real
model sees - the messages, the offered tools and the request parameters - never on harness
files. How strongly it reacts to each lever is a hidden `BehaviourProfile` (profile.py; the
names in brackets below are its fields, the default values those of `DEFAULT_PROFILE`).

Behaviour model, per rollout (the random draws come from a sampling seed the gateway passes
in, fixed per task and attempt, and every decision has its own stream, so candidates are
compared on common random numbers: a prompt that changes one decision's odds leaves every
other draw as it was):

1. The task is recognised by its instruction text inside a user message. An unknown task
   gets one look around (`ls -la`) and then a give-up answer.
2. Traits are read off the harness's prompts by meaning (phrases.py: families of phrasings
   for verification, exploration limits, concision and skimming; the task's own instruction
   is left out), plus `reasoning_effort` (medium when absent) and tool vs fenced mode.
3. Exploration: [explore] look-around commands before acting ([direct_explore] when the
   prompts limit exploration); `head` instead of `cat` when the prompts ask to skim and it
   follows them [skim_follow].
4. Each reference step is executed in order. With probability p_slip the step slips; the
   kind follows [slip_kinds] (slips.py). A typo garbles its first command, which fails; the
   quiet kinds (a wrong value, an off-by-one, missing rows, an output under another name, a
   step silently skipped) print plausible output and no error marker, are never noticed at
   once and leave the step broken (the ones that spoil an output act after the last
   reference step). p_slip = [p_slip] x [effort_slip][effort] **
   [difficulty_weight][difficulty] x [direct_slip] (exploration limited) x [concise_slip]
   (concise prompts) x [fenced_slip] (fenced mode) x [hidden_slip] (after a partial view of
   an input, on the task categories in [needs_full_view]). A typo is noticed at once with
   probability [p_notice] ([verify_notice] when the prompts ask to verify; [hint_notice]
   when its failed result carries a fix-and-retry hint, phrases.RETRY_HINT) and the step
   redone; otherwise it stays broken.
5. A partial view: a tool result that was compressed (folded or cut, phrases.FOLDED), or
   skimmed reads of an input longer than 40 lines. After a folded result it re-reads the
   hidden part with a narrower command with probability [reread_folded], which restores
   the full view.
6. After a step, with probability [p_recheck], a redundant re-check (`ls`/`cat` again).
7. Before submitting, with probability [p_verify] ([verify_p] when the prompts ask to
   verify), a verification command runs (`head -n 20` of the outputs, `cat` when
   [verify_full_read]: costly on long outputs) and, if a step is still broken, with
   probability [verify_catch] every step from the first broken one onwards is rerun.
8. Then it submits: a reply without a tool call.
9. A finishing notice at the start or end of a tool result (phrases.FINISH: "avoid
   redundant checks", "focus on finishing", "N steps left: submit your best work now", ...)
   stops the remaining exploration and re-checks with probability [notice_stop], and makes
   it submit at once, unfinished steps dropped, with probability [notice_rush]. A blocked
   call makes it submit.
10. Each reply carries about [words] x [concise_words] (concise prompts) x
    [effort_words][effort] words of reasoning text; [reasoning_tokens][effort] reasoning
    tokens are reported per call.
11. Without a `tools` list in the request it answers with one fenced ```bash block instead;
    with probability [fenced_malformed] the closing fence is missing (unparseable).
12. With probability [p_malformed] a tool call's arguments are truncated, invalid JSON. If
    the harness asks to resend (phrases.REPAIR) the call comes back intact with probability
    [repair_fix] (else malformed again); any other answer counts as the action having been
    taken, so that step is lost.
13. A refused submission (phrases.REFUSED) makes it verify and rerun every step from the
    first one it slipped on, with probability [guard_redo] (unless it had already planned a
    verification); otherwise it resubmits as it was.
14. Output style: a profile's `variant` bits choose rewrites of the outputs (JSON layout, a
    closing comment in a script it wrote, ...) among those the task's official tests accept
    (variants.py); they run right after the last reference step.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harnesspro.core.records import Task
from harnesspro.execution.fakes import phrases, slips, variants
from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE, BehaviourProfile
from harnesspro.tasks.loader import builtin_suite_dir, reference_steps, workspace_files
from harnesspro.tasks.runtime import input_files

VOCAB = (
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
)
PATH_RE = re.compile(r"`(/[^`\s]+)`")
SKIM_LINES = 40  # a skimmed read shows this many lines
NOTICE, FOLDED, HINT = 0, 1, 2  # the signals of phrases.result_signals


@dataclass(frozen=True)
class TaskScript:
    """What the policy knows about one task (trusted side only)."""

    instruction: str
    workdir: str
    steps: tuple[str, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    category: str = ""
    difficulty: str = "medium"
    long_inputs: tuple[str, ...] = ()  # inputs a skimmed read shows only in part
    variants: tuple[tuple[str, str], ...] = ()  # (output file, kind) its official tests accept


@dataclass(frozen=True)
class Action:
    kind: str  # explore | slip | quiet | step | recheck | verify
    command: str
    index: int = -1  # slip and quiet: the reference step that slipped


def script_for(task: Task) -> TaskScript:
    """Build the policy's knowledge of a task from its folder."""
    workspace = workspace_files(task)
    # Where the image puts them (the Dockerfile's COPY lines), not only the working folder.
    files = input_files(task)
    mentioned = PATH_RE.findall(task.instruction)
    builtin = task.path.parent == builtin_suite_dir()
    long = tuple(
        f"{task.workdir}/{name}" for name, data in workspace.items() if data.count(b"\n") > 40
    )
    return TaskScript(
        instruction=task.instruction,
        workdir=task.workdir,
        steps=tuple(reference_steps(task)),
        inputs=files,
        outputs=tuple(dict.fromkeys(p for p in mentioned if p not in files)),
        category=task.category,
        difficulty=task.difficulty,
        long_inputs=long,
        variants=tuple(variants.accepted().get(task.id, [])) if builtin else (),
    )


def styled_steps(script: TaskScript, profile: BehaviourProfile) -> tuple[str, ...]:
    """The reference steps in the profile's output style (model 14): its chosen rewrites run
    right after the last step."""
    chosen = variants.chosen(script.variants, profile.variant)
    if not chosen or not script.steps:
        return script.steps
    rewrites = [variants.rewrite_command(kind, path) for path, kind in chosen]
    return (*script.steps[:-1], "\n".join([script.steps[-1], *rewrites]))


def _look(rng: random.Random, script: TaskScript, skim: bool = False) -> str:
    u, v = rng.random(), rng.random()
    if not script.inputs or u < 0.3:
        return f"ls -la {script.workdir}"
    path = script.inputs[int(v * len(script.inputs))]
    reader = f"head -n {SKIM_LINES}" if skim else "cat"
    return [f"{reader} {path}", f"head -n {SKIM_LINES} {path}", f"wc -l {path}"][int(u * 10) % 3]


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
    fenced: bool = False

    @classmethod
    def read(cls, request: Mapping[str, Any], instruction: str = "") -> Traits:
        messages = request.get("messages", [])
        system = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
        instance = " ".join(
            str(m.get("content", "")) for m in messages[:2] if m.get("role") == "user"
        )
        found = phrases.prompt_traits(f"{system}\n{instance}", instruction)
        effort = str(request.get("reasoning_effort") or "medium")
        return cls(
            concise="concise" in found,
            verify="verify" in found,
            direct="direct" in found,
            effort=effort if effort in ("low", "medium", "high") else "medium",
            skim="skim" in found,
            fenced=not request.get("tools"),
        )


def slip_rate(script: TaskScript, traits: Traits, profile: BehaviourProfile, hidden: bool) -> float:
    """Behaviour model 4: the chance a step is first issued with a typo."""
    p = profile.p_slip * profile.effort_slip.get(traits.effort, 1.0) ** (
        profile.difficulty_weight.get(script.difficulty, 1.0)
    )
    p *= profile.direct_slip if traits.direct else 1.0
    p *= profile.concise_slip if traits.concise else 1.0
    p *= profile.fenced_slip if traits.fenced else 1.0
    p *= profile.hidden_slip if hidden and script.category in profile.needs_full_view else 1.0
    return min(p, 0.95)


def _skims(script: TaskScript, traits: Traits, profile: BehaviourProfile) -> bool:
    return traits.skim and profile.skim_follow


def plan_actions(
    script: TaskScript,
    traits: Traits,
    seed: str,
    profile: BehaviourProfile = DEFAULT_PROFILE,
    folded_at: int | None = None,
    hinted: frozenset[int] = frozenset(),
) -> list[Action]:
    """The whole rollout's intended actions, drawn once from the sampling seed. `folded_at`:
    the position of the first action whose result came back folded (model 5); `hinted`: the
    positions of slips whose failed result carried a fix-and-retry hint (model 4)."""
    skim = _skims(script, traits, profile)
    lo, hi = profile.direct_explore if traits.direct else profile.explore
    n_explore = lo + int(_stream(seed, "explore").random() * (hi - lo + 1))
    looks = [_look(_stream(seed, "look", i), script, skim) for i in range(n_explore)]
    actions = [Action("explore", command) for command in looks]
    partial = skim and bool(script.long_inputs)
    p_notice = profile.verify_notice if traits.verify else profile.p_notice
    broken: list[int] = []
    quiet: list[tuple[int, str]] = []  # (step, kind) of quiet slips that spoil an output
    steps = styled_steps(script, profile)
    for i, step in enumerate(steps):
        if folded_at is not None and len(actions) > folded_at and not partial:
            partial = _stream(seed, "reread").random() >= profile.reread_folded
            if not partial:  # it looks at what the compression hid
                path = actions[folded_at].command.split()[-1]
                actions.insert(folded_at + 1, Action("explore", f"sed -n '21,200p' {path}"))
            folded_at = None
        rng = _stream(seed, "step", i)
        slip, notice, recheck = rng.random(), rng.random(), rng.random()
        kind = "step"
        if slip < slip_rate(script, traits, profile, partial):
            u = _stream(seed, "kind", i).random()
            kind = slips.choose(profile.slip_kinds, u, bool(script.outputs))
        if kind == "typo":
            hint = len(actions) in hinted
            actions.append(Action("slip", slips.typo(step), i))
            if notice < (profile.hint_notice if hint else p_notice):
                actions.append(Action("step", step))
            else:
                broken.append(i)
        elif kind == "skip":  # quiet: nothing in the result says it was not done
            actions.append(Action("quiet", slips.skipped(script.workdir), i))
            broken.append(i)
        else:
            actions.append(Action("step", step))
            if kind != "step":
                quiet.append((i, kind))
                broken.append(i)
        if recheck < profile.p_recheck:
            actions.append(Action("recheck", _look(_stream(seed, "recheck", i), script, skim)))
    actions = _spoil_outputs(actions, script, quiet, seed)
    if _stream(seed, "verify").random() < (profile.verify_p if traits.verify else profile.p_verify):
        actions.append(Action("verify", _verify_command(script, profile)))
        if broken and _stream(seed, "catch").random() < profile.verify_catch:
            # later steps may have built on the broken one: rerun from there
            actions += [Action("step", step) for step in steps[broken[0] :]]
    return actions


def _spoil_outputs(
    actions: list[Action], script: TaskScript, quiet: list[tuple[int, str]], seed: str
) -> list[Action]:
    """Quiet slips that spoil an output act after the last reference step run (slips.py)."""
    last = next((k for k in range(len(actions) - 1, -1, -1) if actions[k].kind == "step"), None)
    if not quiet or last is None:
        return actions
    spoils = []
    for i, kind in quiet:
        pick = _stream(seed, "spoiled", i).random()
        spoils.append(slips.corruption(kind, script.outputs[int(pick * len(script.outputs))]))
    command = "\n".join([actions[last].command, *spoils])
    return [*actions[:last], Action("quiet", command, quiet[0][0]), *actions[last + 1 :]]


def _verify_command(script: TaskScript, profile: BehaviourProfile) -> str:
    outputs = " ".join(script.outputs) or script.workdir
    reader = "cat" if profile.verify_full_read and script.outputs else "head -n 20"
    return f"ls -la {script.workdir} && {reader} {outputs}"


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


def _first(results: Sequence[str], signal: int) -> int | None:
    """The first result showing phrases.result_signals' `signal` (0 notice, 1 folded)."""
    return next((i for i, text in enumerate(results) if phrases.result_signals(text)[signal]), None)


def _after_notice(
    actions: list[Action], results: Sequence[str], seed: str, profile: BehaviourProfile
) -> list[Action]:
    """Model 9: after a finishing notice, drop exploration and re-checks, or everything."""
    at = _first(results, NOTICE)
    if at is None:
        return actions
    head, tail = actions[: at + 1], actions[at + 1 :]
    if _stream(seed, "rush").random() < profile.notice_rush:
        return head
    if _stream(seed, "stop").random() < profile.notice_stop:
        tail = [a for a in tail if a.kind not in ("explore", "recheck")]
    return head + tail


def _after_refusal(actions: list[Action], steps: tuple[str, ...], workdir: str) -> list[Action]:
    """Model 13: a refused submission makes it check its work and rerun what it broke."""
    if any(a.kind == "verify" for a in actions):
        return actions
    slipped = sorted(a.index for a in actions if a.kind in ("slip", "quiet") and a.index >= 0)
    redo = [Action("step", step) for step in steps[slipped[0] :]] if slipped else []
    return [*actions, Action("verify", f"ls -la {workdir}"), *redo]


def _tool_call(command: str, call_id: str, malformed: bool) -> dict[str, Any]:
    arguments = json.dumps({"command": command})
    if malformed:  # a truncated JSON object, as models sometimes emit
        arguments = arguments[:-2]
    return {"id": call_id, "type": "function", "function": {"name": "bash", "arguments": arguments}}


class ScriptedPolicy:
    """Answers chat requests for known tasks following the behaviour model above."""

    def __init__(
        self, scripts: Sequence[TaskScript], profile: BehaviourProfile = DEFAULT_PROFILE
    ) -> None:
        self.scripts = list(scripts)
        self.profile = profile

    def _find(self, messages: Sequence[Mapping[str, Any]]) -> TaskScript | None:
        users = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
        return next((s for s in self.scripts if s.instruction in users), None)

    def reasoning_tokens(self, request: Mapping[str, Any]) -> int:
        """Reasoning tokens reported for one call (model 10)."""
        effort = str(request.get("reasoning_effort") or "medium")
        return self.profile.reasoning_tokens.get(effort, 0)

    def _todo(
        self, script: TaskScript, traits: Traits, seed: str, history: History
    ) -> list[Action]:
        profile, results = self.profile, history.results
        folded = _first(results, FOLDED)
        actions = plan_actions(script, traits, seed, profile, folded)
        hinted: frozenset[int] = frozenset()
        while _first(results, HINT) is not None:  # settles within one pass per slip
            now = frozenset(
                k
                for k, action in enumerate(actions[: len(results)])
                if action.kind == "slip" and phrases.result_signals(results[k])[HINT]
            )
            if now == hinted:
                break
            hinted = now
            actions = plan_actions(script, traits, seed, profile, folded, hinted)
        if history.guarded and _stream(seed, "guard").random() < profile.guard_redo:
            actions = _after_refusal(actions, styled_steps(script, profile), script.workdir)
        return _after_notice(actions, history.results, seed, profile)

    def _text(self, traits: Traits, seed: str, done: int) -> str:
        words = self.profile.words * (self.profile.concise_words if traits.concise else 1.0)
        words *= self.profile.effort_words.get(traits.effort, 1.0)
        rng = _stream(seed, "text", done)
        return " ".join(rng.choices(VOCAB, k=max(1, round(words))))

    def respond(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        """One assistant message (OpenAI shape) for this request."""
        messages = request.get("messages", [])
        script = self._find(messages)
        traits = Traits.read(request, script.instruction if script else "")
        seed = hashlib.sha256(
            f"{sampling_seed}:{script and script.instruction}".encode()
        ).hexdigest()
        history = read_history(messages, traits.fenced)
        todo = (
            self._todo(script, traits, seed, history) if script else [Action("explore", "ls -la")]
        )
        done = history.done
        text = self._text(traits, seed, done)
        if phrases.BLOCKED.search(history.last[:300]) or done >= len(todo):
            return {"role": "assistant", "content": f"{text}\nThe task is complete."}
        command = todo[done].command
        draw = _stream(seed, "json", done, len(messages)).random()
        if traits.fenced:
            fence = "" if draw < self.profile.fenced_malformed else "\n```"
            return {"role": "assistant", "content": f"{text}\n```bash\n{command}{fence}"}
        p_bad = 1 - self.profile.repair_fix if history.repair_pending else self.profile.p_malformed
        call = _tool_call(command, f"call_{done}_{len(messages)}_{seed[:6]}", draw < p_bad)
        return {"role": "assistant", "content": text, "tool_calls": [call]}
