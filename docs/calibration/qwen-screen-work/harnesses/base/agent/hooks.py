"""Built-in hooks, referenced by name from harness.yaml (`use: <name>` plus parameters).

on_step(agent, **p) -> str | None               text appended to the latest tool result
on_tool_result(agent, text, **p) -> str         the tool result as the model will see it
on_budget(agent, **p) -> str | None             a refusal instead of running the tool call
on_submit(agent, content, **p) -> str | None    a refusal instead of accepting the submission

Texts are appended to tool results (never put in the prompt head) so every earlier message
stays byte-identical and provider prefix caches keep hitting. Each on_submit hook refuses at
most once per rollout (the loop enforces it).
"""

import json
import math
import os

CHARS_PER_TOKEN = 2.5  # harnesspro's documented estimate (improvers/tolerant.py), over-counting
MESSAGE_OVERHEAD = 8  # tokens of chat-template framing per message
KEEP_CHARS = 200  # a tool result cut to fit the window keeps this much of its head


def estimated_tokens(messages, tools):
    text = json.dumps(tools) if tools else ""
    for message in messages:
        text += str(message.get("content") or "")
        text += json.dumps(message["tool_calls"]) if message.get("tool_calls") else ""
    return math.ceil(len(text) / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD * len(messages)


def fit_context(messages, tools, window, max_tokens=None):
    """Cut the oldest tool results (and, in fenced mode, command outputs) in place until the
    request's estimate fits `window` (HARNESSPRO_CONTEXT_TOKENS) less the reply's `max_tokens`
    (else a quarter of the window) and 5%; the system prompt and the task stay whole, and
    nothing is cut while the request fits (the cached prefix is kept). Returns the cuts."""
    limit = window - (max_tokens or window // 4) - window // 20
    cuts = 0
    for message in messages[2:]:
        if estimated_tokens(messages, tools) <= limit:
            break
        content = message.get("content")
        long = isinstance(content, str) and len(content) > 2 * KEEP_CHARS
        if message["role"] in ("tool", "user") and long:
            cut = len(content) - KEEP_CHARS
            message["content"] = f"{content[:KEEP_CHARS]} [... {cut} chars cut to fit the window]"
            cuts += 1
    return cuts


def near_budget_warning(agent, steps_left=3):
    if agent.max_steps - agent.step == steps_left:
        return f"[notice] Only {steps_left} steps left: submit your best work now."
    return None


def notice(agent, text, after, message):
    if agent.tool_calls == after:
        return f"{text}\n\n[notice] {message}"
    return text


def compress(agent, text, max_chars=2000, head=20, tail=20):
    text = fold_repeats(text)
    if len(text) <= max_chars:
        return text
    lines = text.splitlines()
    if len(lines) <= head + tail:
        return text[:max_chars] + f"\n[... {len(text) - max_chars} more characters cut]"
    hidden = lines[head:-tail]
    note = f"[... {len(hidden)} lines ({sum(map(len, hidden))} characters) omitted ...]"
    return "\n".join([*lines[:head], note, *lines[-tail:]])


def fold_repeats(text):
    """Collapse runs of identical lines into one line and a count."""
    out, previous, count = [], None, 0
    for line in [*text.splitlines(), None]:
        if line == previous:
            count += 1
            continue
        if previous is not None:
            out.append(previous if count == 1 else f"{previous}  [repeated {count} times]")
        previous, count = line, 1
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


FAILURE_MARKS = (
    "command not found",
    "no such file or directory",
    "traceback (most recent call last)",
    "syntax error",
    "permission denied",
    "fatal:",
    "error:",
    "timed out after",
)


def failure_hint(agent, text, message="The command failed: fix the error and run it again."):
    """Append a fix-and-retry hint to a result that shows the command failed."""
    low = text.lower()
    silent_failure = text.startswith("(no output, exit code") and "exit code 0)" not in text
    if silent_failure or any(mark in low for mark in FAILURE_MARKS):
        return f"{text}\n\n[hint] {message}"
    return text


def block(agent, after):
    if agent.tool_calls > after:
        return "Tool call blocked: the tool-call budget is spent. Submit your answer now."
    return None


def empty_submission_guard(agent, content):
    if agent.workdir_changed():
        return None
    return (
        "[guard] Submission refused once: nothing in the working directory changed. "
        "Do the work (include new files) before you submit."
    )


def ground_check(agent, content):
    return (
        "[guard] Before this is accepted: verify your change against the instructions and "
        "any existing tests or call sites, then submit again."
    )


def file_state(root):
    """Sizes and modification times of the files under root (for change detection)."""
    state = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            try:
                info = os.stat(path)
            except OSError:
                continue
            state[path] = (info.st_size, info.st_mtime_ns)
    return state
