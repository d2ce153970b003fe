"""A tiny harness loop and task for driving a scripted world directly: commands really run in
bash in a temporary folder, and a rollout passes when its outputs equal the reference
solution's. `shown` is the harness's tool-result policy (what the model is shown)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harnesspro.execution.fakes.task_script import TaskScript

TOOLS = [{"type": "function", "function": {"name": "bash"}}]
SYSTEM = "You are a terminal agent with one tool, bash. Reply without a tool call when done."
OUTPUTS = ("sum.txt", "top.txt", "count.txt")


def make_task(root: Path) -> TaskScript:
    """A task with one long input (1,500 rows) and three outputs, written under `root`."""
    w = str(root)
    rows = [f"name{i:03d},{(i * 37) % 101}" for i in range(1500)]
    (root / "data.txt").write_text("\n".join(rows) + "\n")
    steps = (
        f"awk -F, '{{s+=$2}} END {{print s}}' {w}/data.txt > {w}/sum.txt",
        f"sort -t, -k2 -n {w}/data.txt | tail -n 1 | cut -d, -f1 > {w}/top.txt",
        f"wc -l < {w}/data.txt > {w}/count.txt",
    )
    outputs = tuple(f"{w}/{name}" for name in OUTPUTS)
    return TaskScript(
        instruction=(
            f"Write the sum of the second column of `{w}/data.txt` to `{w}/sum.txt`, the name "
            f"with the largest value to `{w}/top.txt` and the row count to `{w}/count.txt`."
        ),
        workdir=w,
        steps=steps,
        inputs=(f"{w}/data.txt",),
        outputs=outputs,
        category="data-wrangling",
        long_inputs=(f"{w}/data.txt",),
    )


def run(command: str, cwd: Path) -> str:
    done = subprocess.run(
        ["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=10
    )
    text = done.stdout + done.stderr
    return text if text else f"(no output, exit code {done.returncode})"


def play(
    policy: Any,
    script: TaskScript,
    seed: str,
    shown: Callable[[str], str] = lambda text: text,
    system: str = SYSTEM,
    max_steps: int = 25,
    **params: Any,
) -> tuple[list[str], int]:
    """One rollout; the commands run, and the prompt tokens sent in all (4 chars a token)."""
    root = Path(script.workdir)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": script.instruction},
    ]
    commands: list[str] = []
    tokens = 0
    for _ in range(max_steps):
        request = {"messages": messages, "tools": TOOLS, **params}
        tokens += len(json.dumps(messages)) // 4
        reply = policy.respond(request, seed)
        messages.append(reply)
        if not reply.get("tool_calls"):
            break
        call = reply["tool_calls"][0]
        try:
            command = json.loads(call["function"]["arguments"])["command"]
        except ValueError:
            result = "error: the tool call's arguments are not valid JSON"
        else:
            commands.append(command)
            result = shown(run(command, root))
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return commands, tokens


def reset(script: TaskScript) -> None:
    """Remove every output and stray file but the input."""
    root = Path(script.workdir)
    for path in root.iterdir():
        if path.name != "data.txt":
            path.unlink()


def expected(script: TaskScript) -> dict[str, str]:
    """The outputs the reference solution writes."""
    reset(script)
    for step in script.steps:
        run(step, Path(script.workdir))
    return outputs(script)


def outputs(script: TaskScript) -> dict[str, str]:
    root = Path(script.workdir)
    return {n: (root / n).read_text() if (root / n).exists() else "" for n in OUTPUTS}


def trim(text: str, keep: int = 300) -> str:
    """A free-form tool-result policy: long results keep their head and tail."""
    if len(text) <= 2 * keep:
        return text
    return f"{text[:keep]}\n({len(text) - 2 * keep} characters not shown)\n{text[-keep:]}"


def pass_rate(
    policy: Any, script: TaskScript, seeds: range, **kwargs: Any
) -> tuple[list[bool], int]:
    """Per seed whether the rollout passed, and the prompt tokens of all of them."""
    want = expected(script)
    passed, tokens = [], 0
    for seed in seeds:
        reset(script)
        _, used = play(policy, script, f"s:{seed}", **kwargs)
        passed.append(outputs(script) == want)
        tokens += used
    return passed, tokens
