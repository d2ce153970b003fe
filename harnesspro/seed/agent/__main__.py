"""Agent loop of the seed harness (see harness.yaml for every knob).

It speaks plain HTTP to OPENAI_BASE_URL with the standard library: importing an SDK would
cost more start-up time than a short task takes.
"""

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent.parent
BASH_TOOL = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a bash command in the working directory and return its output.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The command to run."}},
            "required": ["command"],
        },
    },
}


class Trajectory:
    def __init__(self, out_dir):
        self.path = Path(out_dir) / "trajectory.jsonl"

    def write(self, kind, step, **fields):
        record = {"type": kind, "step": step, "ts": round(time.time(), 3), **fields}
        with self.path.open("a") as handle:  # one line per event, intact if we are killed
            handle.write(json.dumps(record) + "\n")


def chat(body):
    url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}",
        },
    )
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.loads(response.read())


def run_bash(command, workdir, timeout):
    try:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=workdir,
            capture_output=True,
            timeout=timeout,
            encoding="utf-8",
            errors="replace",
        )
        output = done.stdout + done.stderr
        return output if output else f"(no output, exit code {done.returncode})"
    except subprocess.TimeoutExpired:
        return f"(command timed out after {timeout} s)"


def compress(text, rule):
    if not rule or len(text) <= rule["max_chars"]:
        return text
    lines = text.splitlines()
    head, tail = lines[: rule["head"]], lines[-rule["tail"] :]
    hidden = len(lines) - len(head) - len(tail)
    if hidden <= 0:
        return text[: rule["max_chars"]] + f"\n[... {len(text) - rule['max_chars']} chars cut]"
    return "\n".join([*head, f"[... {hidden} lines omitted ...]", *tail])


def tool_result(config, calls, output):
    if config.get("block_after") is not None and calls > config["block_after"]:
        return "Tool call blocked: the tool-call budget is spent. Submit your answer now."
    text = compress(output, config.get("compress_output"))
    for notice in config.get("notices") or []:
        if calls == notice["after"]:
            text += "\n\n[notice] " + notice["text"]
    return text


def main():
    config = yaml.safe_load((HERE / "harness.yaml").read_text())
    task = json.loads(Path(os.environ["HARNESSPRO_TASK"]).read_text())
    out_dir = os.environ["HARNESSPRO_OUT"]
    trajectory = Trajectory(out_dir)
    prompts = config["prompts"]
    parts = [prompts["system"], *(prompts.get("system_extra") or [])]
    system = "\n".join((HERE / part).read_text() for part in parts)
    instance = (HERE / config["prompts"]["instance"]).read_text().format(**task)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": instance}]
    calls, status = 0, "step_cap"
    for step in range(1, config["max_steps"] + 1):
        body = {"model": os.environ["HARNESSPRO_MODEL"], "messages": messages, "tools": [BASH_TOOL]}
        body.update(config.get("request") or {})
        try:
            reply = chat(body)["choices"][0]["message"]
        except urllib.error.HTTPError as exc:
            trajectory.write("error", step, message=f"model call failed: HTTP {exc.code}")
            status = "model_error"
            break
        trajectory.write("model_call", step, content=reply.get("content"))
        messages.append({k: v for k, v in reply.items() if k in ("role", "content", "tool_calls")})
        if not reply.get("tool_calls"):
            trajectory.write("submit", step, content=reply.get("content"))
            status = "submitted"
            break
        for call in reply["tool_calls"]:
            calls += 1
            try:
                command = json.loads(call["function"]["arguments"])["command"]
            except (KeyError, ValueError):
                command = None
            trajectory.write("tool_call", step, command=command)
            output = (
                run_bash(command, task["workdir"], config["command_timeout_s"])
                if command
                else ("error: arguments must be JSON with a `command` string")
            )
            text = tool_result(config, calls, output)
            trajectory.write("tool_result", step, chars=len(text), output=text[:2000])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
    result = {"status": status, "steps": step, "tool_calls": calls}
    (Path(out_dir) / "result.json").write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
