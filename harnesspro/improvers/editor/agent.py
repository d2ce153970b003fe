"""Inside the sandbox: the editing agent, a small tool loop over one harness directory.

Standard library only; it runs under the sandbox's interpreter with nothing of harnesspro
mounted. Environment: HARNESSPRO_EDIT_ROOT (the harness copy, the only writable input),
HARNESSPRO_EDIT_JOB (job.json: model, system, user, max_steps, request, context_limit),
HARNESSPRO_OUT (transcript.jsonl and result.json are written there), HARNESSPRO_TOLERANT
(harnesspro/improvers/tolerant.py, mounted beside this file), OPENAI_BASE_URL /
OPENAI_API_KEY (the search gateway and a search-account token).

Replies are read as models write them: tool-call arguments with trailing commas or stray
backslashes are repaired, and a reply that writes its tool call as JSON in its text (fenced,
in `<tool_call>` tags, after a `<think>` block) is run as that call. With a `context_limit`
the conversation is fitted before each request: the oldest tool results and long tool-call
arguments are cut first; an HTTP 400 for length cuts to 70% once more.
"""

import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(os.environ.get("HARNESSPRO_EDIT_ROOT", ".")).resolve()
TOLERANT = os.environ.get("HARNESSPRO_TOLERANT") or str(Path(__file__).parents[1] / "tolerant.py")
_spec = importlib.util.spec_from_file_location("tolerant", TOLERANT)
assert _spec is not None and _spec.loader is not None, TOLERANT
tolerant = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tolerant)
OUT = Path(os.environ.get("HARNESSPRO_OUT", "."))
COMMAND_TIMEOUT_S = 20
RESULT_CHARS = 8000
WRITE_CAP = 1_000_000


def tool(name: str, description: str, **params: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {k: {"type": "string", "description": v} for k, v in params.items()},
                "required": [k for k in params if k != "path" or name != "list_files"],
            },
        },
    }


TOOLS = [
    tool("list_files", "List the files under a directory of the harness.", path="directory"),
    tool("read_file", "Read a file of the harness.", path="file path"),
    tool(
        "write_file",
        "Create or replace a file of the harness with the full new text.",
        path="file path",
        content="the complete new file content",
    ),
    tool(
        "replace_in_file",
        "Replace one exact occurrence of `old` with `new` in a file of the harness.",
        path="file path",
        old="the exact text to replace (must occur once)",
        new="the replacement text",
    ),
    tool("bash", "Run a shell command in the harness directory.", command="the command"),
    tool("run_checks", "Run the harness's own checks (compile, manifest, immutable paths)."),
]
ALIASES = {
    "create_file": "write_file", "edit_file": "write_file", "str_replace": "replace_in_file",
    "execute_bash": "bash", "shell": "bash", "run_command": "bash", "open_file": "read_file",
    "view_file": "read_file", "list_dir": "list_files", "ls": "list_files",
}  # fmt: skip
"""Tool names models trained on other agents use, as the tools here."""
ARGUMENT_ALIASES = {
    "file_path": "path", "filename": "path", "file": "path", "cmd": "command",
    "old_str": "old", "new_str": "new", "file_text": "content", "text": "content",
}  # fmt: skip
IMMUTABLE: list[str] = []  # set from the job: paths the editor may not change
ORIGINAL: dict[str, bytes] = {}  # their content when the session started


def inside(path: str) -> Path:
    """A harness path, refusing anything that leaves the harness directory."""
    target = (ROOT / (path or ".")).resolve()
    if target != ROOT and ROOT not in target.parents:
        raise ValueError(f"{path}: outside the harness directory")
    return target


def list_files(path: str = ".") -> str:
    base = inside(path)
    found = [
        f"{p.relative_to(ROOT)} ({p.stat().st_size} bytes)"
        for p in sorted(base.rglob("*"))
        if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts
    ]
    return "\n".join(found) or "(no files)"


def read_file(path: str) -> str:
    return inside(path).read_text(errors="replace")


def writable(path: str) -> Path:
    """A harness path the editor may write: inside the harness and not immutable."""
    target = inside(path)
    if str(target.relative_to(ROOT)) in IMMUTABLE:
        raise ValueError(f"refused: {path} is immutable (the manifest lists it)")
    return target


def write_file(path: str, content: str) -> str:
    if len(content) > WRITE_CAP:
        raise ValueError(f"content over {WRITE_CAP} characters")
    target = writable(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content)
    return f"wrote {len(content)} characters to {path}"


def replace_in_file(path: str, old: str, new: str) -> str:
    target = writable(path)
    text = target.read_text()
    if text.count(old) != 1:
        raise ValueError(f"`old` occurs {text.count(old)} times in {path}; it must occur once")
    target.write_text(text.replace(old, new))
    return f"replaced 1 occurrence in {path}"


def run_checks() -> str:
    """Compile every Python file, parse the manifest and config, compare immutable paths."""
    problems = []
    for source in sorted(ROOT.rglob("*.py")):
        try:
            compile(source.read_bytes(), str(source), "exec")
        except (SyntaxError, ValueError) as exc:
            problems.append(f"{source.relative_to(ROOT)} does not compile: {exc}")
    try:
        import tomllib

        tomllib.loads((ROOT / "harness.toml").read_text())["harness"]["command"]
    except (OSError, ValueError, KeyError) as exc:
        problems.append(f"harness.toml: {exc}")
    for rel, data in ORIGINAL.items():
        current = ROOT / rel
        if not current.is_file() or current.read_bytes() != data:
            problems.append(f"immutable path {rel} changed")
    return "\n".join(problems) or "all checks passed"


def bash(command: str) -> str:
    try:
        done = subprocess.run(
            ["bash", "-c", command], cwd=ROOT, capture_output=True, timeout=COMMAND_TIMEOUT_S,
            encoding="utf-8", errors="replace",
        )  # fmt: skip
        return (done.stdout + done.stderr) or f"(no output, exit code {done.returncode})"
    except subprocess.TimeoutExpired:
        return f"(command timed out after {COMMAND_TIMEOUT_S} s)"


HANDLERS: dict[str, Any] = {
    "list_files": list_files,
    "read_file": read_file,
    "write_file": write_file,
    "replace_in_file": replace_in_file,
    "bash": bash,
    "run_checks": run_checks,
}


def log(kind: str, **fields: Any) -> None:
    record = {"type": kind, "ts": round(time.time(), 3), **fields}
    with (OUT / "transcript.jsonl").open("a") as handle:
        handle.write(json.dumps(record) + "\n")


def post(body: dict[str, Any]) -> Any:
    url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}",
    }
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise RuntimeError(
            f"HTTP {exc.code}: {exc.read().decode(errors='replace')[:300]}"
        ) from None


def arguments(text: Any) -> Any:
    """A call's arguments: a JSON object as sent, else repaired (`tolerant.loads`), with
    argument names in other words mapped (file_path -> path, cmd -> command, ...)."""
    if isinstance(text, dict):
        args: Any = text
    else:
        try:
            args = json.loads(text or "{}")
        except ValueError:
            args = tolerant.loads(str(text))
    if not isinstance(args, dict):
        return args
    return {ARGUMENT_ALIASES.get(k, k): v for k, v in args.items()}


def calls_of(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The reply's tool calls (names in other words mapped), or when it has none the calls
    it wrote as JSON in its text (`tolerant.calls_in_text`)."""
    if not reply.get("tool_calls"):
        return list(tolerant.calls_in_text(str(reply.get("content") or ""), HANDLERS, ALIASES))
    calls = []
    for call in reply["tool_calls"]:
        function = call.get("function") or {}
        name = str(function.get("name"))
        name = ALIASES.get(name, name)
        calls.append({**call, "function": {**function, "name": name}})
    return calls


def run_tool(call: dict[str, Any]) -> str:
    name = call.get("function", {}).get("name")
    try:
        args = arguments(call["function"].get("arguments"))
        if name not in HANDLERS or not isinstance(args, dict):
            raise ValueError(f"unknown tool {name!r}; use one of {sorted(HANDLERS)}")
        result = str(HANDLERS[name](**args))
    except (ValueError, TypeError, OSError, KeyError) as exc:
        result = f"error: {exc}"
    log(
        "tool", name=name, arguments=call.get("function", {}).get("arguments"), result=result[:2000]
    )
    return result[:RESULT_CHARS]


def ask(job: dict[str, Any], messages: list[dict[str, Any]], limit: int | None) -> Any:
    """The model's next message, the conversation fitted to `limit` first; an HTTP 400 that
    says the prompt is too long is answered by cutting to 70% of the limit, once."""
    if not tolerant.fit_conversation(messages, limit, TOOLS):
        raise RuntimeError("the conversation cannot fit the context window")
    body = {"model": job["model"], "messages": messages, "tools": TOOLS, **job["request"]}
    try:
        return post(body)["choices"][0]["message"]
    except RuntimeError as exc:
        too_long = "HTTP 400" in str(exc) and any(
            w in str(exc).lower() for w in ("context", "too long", "exceed", "length")
        )
        current = limit or tolerant.message_tokens(messages, TOOLS)
        if not too_long or not tolerant.fit_conversation(messages, int(current * 0.7), TOOLS):
            raise
        log("refit", limit=int(current * 0.7))
        return post(body)["choices"][0]["message"]


def main() -> int:
    job = json.loads(Path(os.environ["HARNESSPRO_EDIT_JOB"]).read_text())
    IMMUTABLE[:] = job.get("immutable", [])
    ORIGINAL.update({rel: (ROOT / rel).read_bytes() for rel in IMMUTABLE if (ROOT / rel).is_file()})
    messages = [
        {"role": "system", "content": job["system"]},
        {"role": "user", "content": job["user"]},
    ]
    status, summary, steps = "step_cap", "", 0
    limit = job.get("context_limit")
    while steps < job["max_steps"]:
        steps += 1
        try:
            reply = ask(job, messages, limit)
        except (RuntimeError, OSError, KeyError, IndexError, ValueError) as exc:
            status, summary = "model_error", str(exc)[:300]
            log("error", message=summary)
            break
        calls = calls_of(reply)
        log("model", content=reply.get("content"), tool_calls=len(calls))
        kept = {k: v for k, v in reply.items() if k in ("role", "content")}
        messages.append({**kept, "tool_calls": calls} if calls else kept)
        if not calls:
            status, summary = "done", str(reply.get("content") or "")[:2000]
            break
        for call in calls:
            content = run_tool(call)
            messages.append(
                {"role": "tool", "tool_call_id": call.get("id", ""), "content": content}
            )
    result = {"status": status, "steps": steps, "summary": summary}
    (OUT / "result.json").write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
