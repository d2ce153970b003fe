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
from collections.abc import Mapping, Sequence
from typing import Any

from harnesspro.execution.fakes import phrases, slips
from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE, BehaviourProfile
from harnesspro.execution.fakes.history import (
    FOLDED,
    HINT,
    History,
    after_notice,
    after_refusal,
    first_signal,
    read_history,
)
from harnesspro.execution.fakes.task_script import (
    VOCAB,
    Action,
    TaskScript,
    look_command,
    stream,
    styled_steps,
)
from harnesspro.execution.fakes.traits import Traits, slip_rate


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
    n_explore = lo + int(stream(seed, "explore").random() * (hi - lo + 1))
    looks = [look_command(stream(seed, "look", i), script, skim) for i in range(n_explore)]
    actions = [Action("explore", command) for command in looks]
    partial = skim and bool(script.long_inputs)
    broken: list[int] = []
    quiet: list[tuple[int, str]] = []  # (step, kind) of quiet slips that spoil an output
    steps = styled_steps(script, profile.variant)
    for i, step in enumerate(steps):
        if folded_at is not None and len(actions) > folded_at and not partial:
            partial = stream(seed, "reread").random() >= profile.reread_folded
            if not partial:  # it looks at what the compression hid
                path = actions[folded_at].command.split()[-1]
                actions.insert(folded_at + 1, Action("explore", f"sed -n '21,200p' {path}"))
            folded_at = None
        hint = len(actions) in hinted
        issued, kind = _issue_step(script, traits, profile, seed, i, step, partial, hint)
        actions += issued
        if kind != "step":
            broken.append(i)
        if kind not in ("step", "typo", "skip"):
            quiet.append((i, kind))
    actions = _spoil_outputs(actions, script, quiet, seed)
    if stream(seed, "verify").random() < (profile.verify_p if traits.verify else profile.p_verify):
        actions.append(Action("verify", _verify_command(script, profile)))
        if broken and stream(seed, "catch").random() < profile.verify_catch:
            # later steps may have built on the broken one: rerun from there
            actions += [Action("step", step) for step in steps[broken[0] :]]
    return actions


def _issue_step(
    script: TaskScript,
    traits: Traits,
    profile: BehaviourProfile,
    seed: str,
    i: int,
    step: str,
    partial: bool,
    hint: bool,
) -> tuple[list[Action], str]:
    """The actions reference step `i` becomes, and how it went: "step" (done, or a typo
    noticed and redone), "typo" (a failing command left as it is), or a quiet slip's kind
    ("skip", or one that spoils an output: the step itself runs)."""
    rng = stream(seed, "step", i)
    slip, notice, recheck = rng.random(), rng.random(), rng.random()
    kind = "step"
    if slip < slip_rate(script, traits, profile, partial):
        u = stream(seed, "kind", i).random()
        kind = slips.choose(profile.slip_kinds, u, bool(script.own_outputs()))
    p_notice = profile.verify_notice if traits.verify else profile.p_notice
    if kind == "typo":
        actions = [Action("slip", slips.typo(step), i)]
        if notice < (profile.hint_notice if hint else p_notice):
            actions.append(Action("step", step))
            kind = "step"
    elif kind == "skip":  # quiet: nothing in the result says it was not done
        actions = [Action("quiet", slips.skipped(script.workdir), i)]
    else:
        actions = [Action("step", step)]
    if recheck < profile.p_recheck:
        skim = _skims(script, traits, profile)
        actions.append(Action("recheck", look_command(stream(seed, "recheck", i), script, skim)))
    return actions, kind


def _spoil_outputs(
    actions: list[Action], script: TaskScript, quiet: list[tuple[int, str]], seed: str
) -> list[Action]:
    """Quiet slips that spoil an output act after the last reference step run (slips.py)."""
    last = next((k for k in range(len(actions) - 1, -1, -1) if actions[k].kind == "step"), None)
    if not quiet or last is None:
        return actions
    spoils = []
    for i, kind in quiet:
        pick = stream(seed, "spoiled", i).random()
        own = script.own_outputs()
        spoils.append(slips.corruption(kind, own[int(pick * len(own))]))
    command = "\n".join([actions[last].command, *spoils])
    return [*actions[:last], Action("quiet", command, quiet[0][0]), *actions[last + 1 :]]


def _verify_command(script: TaskScript, profile: BehaviourProfile) -> str:
    outputs = " ".join(script.outputs) or script.workdir
    reader = "cat" if profile.verify_full_read and script.outputs else "head -n 20"
    return f"ls -la {script.workdir} && {reader} {outputs}"


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
        folded = first_signal(results, FOLDED)
        actions = plan_actions(script, traits, seed, profile, folded)
        hinted: frozenset[int] = frozenset()
        while first_signal(results, HINT) is not None:  # settles within one pass per slip
            now = frozenset(
                k
                for k, action in enumerate(actions[: len(results)])
                if action.kind == "slip" and phrases.result_signals(results[k])[HINT]
            )
            if now == hinted:
                break
            hinted = now
            actions = plan_actions(script, traits, seed, profile, folded, hinted)
        if history.guarded and stream(seed, "guard").random() < profile.guard_redo:
            actions = after_refusal(actions, styled_steps(script, profile.variant), script.workdir)
        return after_notice(actions, history.results, seed, profile)

    def _text(self, traits: Traits, seed: str, done: int) -> str:
        words = self.profile.words * (self.profile.concise_words if traits.concise else 1.0)
        words *= self.profile.effort_words.get(traits.effort, 1.0)
        rng = stream(seed, "text", done)
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
        draw = stream(seed, "json", done, len(messages)).random()
        if traits.fenced:
            fence = "" if draw < self.profile.fenced_malformed else "\n```"
            return {"role": "assistant", "content": f"{text}\n```bash\n{command}{fence}"}
        p_bad = 1 - self.profile.repair_fix if history.repair_pending else self.profile.p_malformed
        call = _tool_call(command, f"call_{done}_{len(messages)}_{seed[:6]}", draw < p_bad)
        return {"role": "assistant", "content": text, "tool_calls": [call]}
