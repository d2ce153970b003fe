"""Agent loop of the seed harness (every knob is in harness.yaml; hooks in hooks.py).

It speaks plain HTTP to OPENAI_BASE_URL with the standard library: importing an SDK would
cost more start-up time than a short task takes. An http:// endpoint (the metering gateway's
loopback port in a sandbox) is spoken to over a socket; only an https:// one loads urllib,
whose imports (email, ssl) cost about as much CPU as a short rollout's agent loop.
"""

import importlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

from agent import config as harness_config
from agent import hooks

HERE = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"```(?:bash|sh)?\n(.*?)```", re.S)
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
FENCED_HINT = (
    "\nReply with exactly one ```bash block per message to run a command, or none when done."
)


class ModelError(Exception):
    """The endpoint refused or failed a call."""


def post(body):
    url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}",
    }
    send = post_plain if url.startswith("http://") else post_tls
    status, payload = send(url, json.dumps(body).encode(), headers)
    if status >= 400:
        raise ModelError(f"HTTP {status}: {payload.decode(errors='replace')[:300]}")
    return json.loads(payload)


def post_plain(url, data, headers):
    """(status, body) of one HTTP/1.0 POST: the server closes the connection after it."""
    authority, _, path = url[len("http://") :].partition("/")
    host, _, port = authority.partition(":")
    lines = [f"POST /{path} HTTP/1.0", f"Host: {authority}", f"Content-Length: {len(data)}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    with socket.create_connection((host, int(port or 80)), timeout=600) as conn:
        conn.sendall("\r\n".join(lines).encode() + b"\r\n\r\n" + data)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    head, _, payload = b"".join(chunks).partition(b"\r\n\r\n")
    parts = head.split(b" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise ConnectionError(f"no HTTP response from {authority}: {head[:100]!r}")
    return int(parts[1]), payload


def post_tls(url, data, headers):
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def hook_function(name):
    """A built-in hook of agent/hooks.py by name, or any harness module's as `module:function`."""
    if ":" in name:
        module, _, function = name.partition(":")
        return getattr(importlib.import_module(module), function)
    return getattr(hooks, name)


class Agent:
    def __init__(self, config, task, out_dir):
        self.config, self.task = config, task
        self.out = Path(out_dir)
        self.max_steps = config["max_steps"]
        self.step = self.tool_calls = 0
        self.fenced = config.get("tool_mode") == "fenced"
        self.request = dict(config.get("request") or {})
        self.refused = set()
        self.initial_files = hooks.file_state(task["workdir"])
        self.apply_profile()
        self.messages = [
            {"role": "system", "content": self.system_prompt()},
            {"role": "user", "content": self.prompt("instance").format(**task)},
        ]

    # -- set-up ---------------------------------------------------------------------------
    def prompt(self, name):
        return (HERE / self.config["prompts"][name]).read_text()

    def system_prompt(self):
        extra = self.config["prompts"].get("system_extra") or []
        text = "\n".join([self.prompt("system"), *((HERE / p).read_text() for p in extra)])
        return text + (FENCED_HINT if self.fenced else "")

    def apply_profile(self):
        """The first matching profile sets request parameters and a tool-call budget.

        A profile matches when every word of `when` occurs in the instruction and the
        instruction has at most `max_words` words (both optional).
        """
        text = self.task["instruction"].lower()
        for profile in self.config.get("profiles") or []:
            short = len(text.split()) <= profile.get("max_words", float("inf"))
            if short and all(w.lower() in text for w in profile.get("when", [])):
                self.request.update(profile.get("request") or {})
                if profile.get("tool_budget") is not None:
                    budget = {"use": "block", "after": profile["tool_budget"]}
                    self.config.setdefault("hooks", {}).setdefault("on_budget", []).append(budget)
                self.log("hook", name="profile", profile=profile.get("name"))
                return

    # -- hooks ----------------------------------------------------------------------------
    def run_hooks(self, point, *args):
        for spec in (self.config.get("hooks") or {}).get(point) or []:
            params = {k: v for k, v in spec.items() if k != "use"}
            yield spec["use"], hook_function(spec["use"])(self, *args, **params)

    def transform(self, point, text):
        """Pass text through each hook at `point` in order, each seeing the previous result."""
        for spec in (self.config.get("hooks") or {}).get(point) or []:
            params = {k: v for k, v in spec.items() if k != "use"}
            result = hook_function(spec["use"])(self, text, **params)
            if result != text:
                self.log("hook", name=spec["use"], chars_before=len(text), chars_after=len(result))
            text = result
        return text

    def workdir_changed(self):
        return hooks.file_state(self.task["workdir"]) != self.initial_files

    # -- I/O ------------------------------------------------------------------------------
    def log(self, kind, **fields):
        record = {"type": kind, "step": self.step, "ts": round(time.time(), 3), **fields}
        with (self.out / "trajectory.jsonl").open("a") as handle:
            handle.write(json.dumps(record) + "\n")

    def ask(self):
        body = {"model": os.environ["HARNESSPRO_MODEL"], "messages": self.messages, **self.request}
        if not self.fenced:
            body["tools"] = [BASH_TOOL]
        window = int(os.environ.get("HARNESSPRO_CONTEXT_TOKENS") or 0)
        if window and hooks.fit_context(self.messages, body.get("tools"), window,
                                        self.request.get("max_tokens")):  # fmt: skip
            self.log("hook", name="fit_context", window=window)
        try:
            return post(body)["choices"][0]["message"]
        except ModelError as exc:
            if not self.fenced and "tool" in str(exc).lower():
                self.fenced = True  # the endpoint has no tool calling: fall back to fences
                self.messages[0]["content"] += FENCED_HINT
                self.log("hook", name="fenced_fallback", reason=str(exc)[:200])
                return self.ask()
            raise

    def run_bash(self, command):
        try:
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=self.task["workdir"],
                capture_output=True,
                timeout=self.config["command_timeout_s"],
                encoding="utf-8",
                errors="replace",
            )
            output = done.stdout + done.stderr
            return output if output else f"(no output, exit code {done.returncode})"
        except subprocess.TimeoutExpired:
            return f"(command timed out after {self.config['command_timeout_s']} s)"

    # -- one tool call ----------------------------------------------------------------------
    def execute(self, command):
        self.tool_calls += 1
        self.log("tool_call", command=command)
        refusal = next((r for _, r in self.run_hooks("on_budget") if r), None)
        text = self.transform("on_tool_result", refusal or self.run_bash(command))
        self.log("tool_result", chars=len(text), output=text[:2000])
        return text

    def parse(self, reply):
        """The commands of a reply, or None when it cannot be parsed."""
        if self.fenced:
            return FENCE.findall(reply.get("content") or "")[:1]
        commands = []
        for call in reply.get("tool_calls") or []:
            try:
                commands.append(json.loads(call["function"]["arguments"])["command"])
            except (KeyError, TypeError, ValueError):
                return None
        return commands

    def respond(self, reply, commands):
        """Append the tool results (or the fenced-mode user turn) for this reply."""
        if self.fenced:
            text = self.execute(commands[0])
            self.messages.append({"role": "user", "content": text})
            return
        for call, command in zip(reply["tool_calls"], commands, strict=False):
            self.messages.append(
                {"role": "tool", "tool_call_id": call["id"], "content": self.execute(command)}
            )

    def repair(self, reply):
        """Tell the model its reply could not be parsed, once per step."""
        self.log("hook", name="format_repair")
        hint = "[repair] Your last reply could not be parsed: resend it with valid JSON arguments."
        if self.fenced:
            hint = "[repair] Reply with exactly one ```bash block, or no block when you are done."
            self.messages.append({"role": "user", "content": hint})
            return
        for call in reply.get("tool_calls") or []:
            self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": hint})

    def submit(self, content):
        for name, refusal in self.run_hooks("on_submit", content):
            if refusal and name not in self.refused:
                self.refused.add(name)
                self.log("hook", name=name, refused=True)
                self.messages.append({"role": "user", "content": refusal})
                return False
        self.log("submit", content=content)
        return True

    # -- the loop ------------------------------------------------------------------------------
    def run(self):
        status = "step_cap"
        while self.step < self.max_steps:
            self.step += 1
            try:
                reply = self.ask()
            except ModelError as exc:
                self.log("error", message=str(exc))
                status = "budget_exhausted" if "budget" in str(exc).lower() else "model_error"
                break
            self.log("model_call", content=reply.get("content"))
            self.messages.append(
                {k: v for k, v in reply.items() if k in ("role", "content", "tool_calls")}
            )
            commands = self.parse(reply)
            if commands is None or (
                self.fenced and not commands and "```" in (reply.get("content") or "")
            ):
                if self.config.get("format_repair"):
                    self.repair(reply)
                    continue
                commands = None
            if commands is None:
                self.log("error", message="unparseable reply")
                self.repair_less(reply)
                continue
            if not commands:
                if self.submit(reply.get("content")):
                    status = "submitted"
                    break
                continue
            self.respond(reply, commands)
            for _, text in self.run_hooks("on_step"):
                if text:
                    self.messages[-1]["content"] += "\n\n" + text
                    self.log("notice", text=text)
        result = {"status": status, "steps": self.step, "tool_calls": self.tool_calls}
        (self.out / "result.json").write_text(json.dumps(result))

    def repair_less(self, reply):
        """Without format repair the broken call still needs a result to keep the protocol."""
        for call in reply.get("tool_calls") or []:
            self.tool_calls += 1
            error = "error: arguments must be JSON with a `command` string"
            self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": error})


def main():
    config = harness_config.load((HERE / "harness.yaml").read_text())
    task = json.loads(Path(os.environ["HARNESSPRO_TASK"]).read_text())
    Agent(config, task, os.environ["HARNESSPRO_OUT"]).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
