"""The scripted improver: an offline stand-in for the `llm` improver's model (not an LLM).

It lets `evolution.improver: llm` run end to end without credentials, through the same
prompts, search gateway, validation, sandboxed editing agent and fallbacks as a real model.
Like the scripted policy, it answers only from what a model would see, the messages:

- analyzer (system prompt `# Role: trajectory analyzer`): returns the `observed` rule-based
  diagnoses of its inputs as its own;
- planner (`# Role: evolution planner`): per directive, picks from the offered `mechanisms`
  by their `catalog_prediction` the way the catalog planner ranks them;
- editor (`# Role: harness editor`): reads the files its `reference_change` diff touches,
  applies the named catalog mechanism to those contents, writes the changed files back with
  `write_file`, then replies with a summary;
- test synthesizer (`# Role: test synthesizer`): writes a shell test from the working-directory
  paths its instruction quotes: the exact content most clean seed rollouts (else most of
  all) agree on (by sha256), else the link target, non-emptiness or existence they agree
  on, plus the HEAD branch (and a clean status, when most are clean) of every git
  repository most of them left.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from harnesspro.gateway.streaming import to_chunks
from harnesspro.gateway.upstream import PrefixCache, envelope
from harnesspro.mechanisms.catalog import CATALOG, Mechanism
from harnesspro.planner.catalog import Prediction, preference
from harnesspro.records import DIRECTIVES
from harnesspro.testsynth.offline import is_clean

Message = dict[str, Any]


def _inputs(messages: list[Message]) -> Any:
    from harnesspro.search.ask import extract_json

    first_user = next(m for m in messages if m.get("role") == "user")
    return json.loads(extract_json(str(first_user.get("content") or "")))


def analyze(messages: list[Message]) -> Message:
    data = _inputs(messages)
    diagnoses = [
        {k: d[k] for k in ("task_id", "kind", "count", "of", "effect_pass", "effect_cost")}
        | {"evidence": str(d.get("evidence", ""))[:500]}
        for d in data.get("observed", [])
    ]
    return {"role": "assistant", "content": json.dumps({"diagnoses": diagnoses})}


def plan(messages: list[Message]) -> Message:
    data = _inputs(messages)
    options = [
        Prediction(
            CATALOG[m["name"]], m["catalog_prediction"]["pass"], m["catalog_prediction"]["cost"]
        )
        for m in data["mechanisms"]
        if m["name"] in CATALOG
    ]
    plans: list[dict[str, Any]] = []
    for directive in DIRECTIVES:
        free = [p for p in options if p.mechanism.name not in {x["mechanism"] for x in plans}]
        if not free:
            break
        best = min(free, key=lambda p: (*preference(directive, p), p.mechanism.name))
        plans.append(
            {
                "directive": directive,
                "mechanism": best.mechanism.name,
                "rationale": f"{best.mechanism.summary} ({best.mechanism.lever})",
                "predicted_pass": best.d_pass,
                "predicted_cost": best.d_cost,
            }
        )
    return {"role": "assistant", "content": json.dumps({"plans": plans})}


def _call(n: int, name: str, **arguments: str) -> dict[str, Any]:
    return {
        "id": f"call_{n}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _touched(diff: str, side: str = "--- a/") -> list[str]:
    """Files a unified diff changes: existing ones (`--- a/`) or all of them (`+++ b/`)."""
    return [line[len(side) :].strip() for line in diff.splitlines() if line.startswith(side)]


def _applied(mechanism: Mechanism, contents: Mapping[str, str], named: list[str]) -> dict[str, str]:
    """The mechanism applied to these file contents: every file it changed or added."""
    with tempfile.TemporaryDirectory(prefix="hp-scripted-") as name:
        root = Path(name)
        for rel in named:  # folders of new files exist in the real harness
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
        for rel, text in contents.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        mechanism.apply(root)
        after = {str(p.relative_to(root)): p.read_text() for p in root.rglob("*") if p.is_file()}
    return {rel: text for rel, text in after.items() if contents.get(rel) != text}


def edit(messages: list[Message]) -> Message:
    data = _inputs(messages)
    mechanism = CATALOG.get(data["plan"]["mechanism"])
    asked = [m for m in messages if m.get("role") == "assistant" and m.get("tool_calls")]
    wrote = any(c["function"]["name"] == "write_file" for m in asked for c in m["tool_calls"])
    if mechanism is None or wrote:
        return {"role": "assistant", "content": f"Applied {data['plan']['mechanism']}."}
    if not asked:
        reads = _touched(str(data.get("reference_change", "")))
        calls = [_call(n, "read_file", path=rel) for n, rel in enumerate(reads)]
        if calls:
            return {"role": "assistant", "content": "", "tool_calls": calls}
    results = {
        m.get("tool_call_id"): str(m.get("content")) for m in messages if m["role"] == "tool"
    }
    contents = {}
    for call in asked[0]["tool_calls"] if asked else []:
        path = json.loads(call["function"]["arguments"])["path"]
        contents[path] = results.get(call["id"], "")
    try:
        named = _touched(str(data.get("reference_change", "")), "+++ b/")
        changed = _applied(mechanism, contents, named)
    except (OSError, KeyError, TypeError, ValueError, AttributeError):
        return {"role": "assistant", "content": "The mechanism does not apply to this harness."}
    calls = [
        _call(100 + n, "write_file", path=rel, content=text)
        for n, (rel, text) in enumerate(sorted(changed.items()))
    ]
    return {"role": "assistant", "content": "", "tool_calls": calls}


def _majority(values: list[Any]) -> Any:
    """The value more than half of `values` share, else None."""
    for value in values:
        if value is not None and values.count(value) * 2 > len(values):
            return value
    return None


def _path_check(rel: str, seeds: list[dict[str, Any]]) -> str | None:
    quoted = shlex.quote(rel)
    clean = [s for s in seeds if is_clean(s["trajectory"])]
    text = _majority([s["files"].get(rel) for s in clean]) or _majority(
        [s["files"].get(rel) for s in seeds]
    )
    if text is not None and not text.endswith("[... cut ...]"):
        digest = hashlib.sha256(text.encode()).hexdigest()
        return f"echo {digest}'  '{quoted} | sha256sum -c --quiet -"
    link = _majority([s["links"].get(rel) for s in seeds])
    if link is not None:
        return f'[ "$(readlink {quoted})" = {shlex.quote(link)} ]'
    if _majority([bool(s["files"].get(rel, "").strip()) for s in seeds]):
        return f"test -s {quoted}"
    present = [rel in s["files"] or rel in s["other_files"] or rel in s["modes"] for s in seeds]
    return f"test -e {quoted}" if _majority(present) else None


def synthesize_test(messages: list[Message]) -> Message:
    data = _inputs(messages)
    root = str(data["workdir"]).rstrip("/") + "/"
    quoted = re.findall(r"`(/[^`\s]+)`", str(data["instruction"]))
    paths = sorted({q.rstrip("/")[len(root) :] for q in quoted if q.startswith(root)} - {""})
    seeds = list(data["seeds"])
    lines = ["#!/bin/bash", "set -e"]
    lines += [c for c in (_path_check(rel, seeds) for rel in paths) if c is not None]
    for repo in sorted({r for s in seeds for r in s["git"]}):
        head = _majority([s["git"].get(repo, {}).get("head") for s in seeds])
        git = f"git -c safe.directory='*' -C {shlex.quote(repo or '.')}"
        status = _majority([s["git"].get(repo, {}).get("status") for s in seeds])
        if head:
            lines.append(f'[ "$({git} symbolic-ref -q --short HEAD)" = {shlex.quote(head)} ]')
        if status == "":
            lines.append(f'[ -z "$({git} status --porcelain)" ]')
    answer = {"kind": "shell", "code": "\n".join(lines) + "\n", "rationale": "seed majority"}
    return {"role": "assistant", "content": json.dumps(answer)}


ROLES = {
    "# Role: trajectory analyzer": analyze,
    "# Role: evolution planner": plan,
    "# Role: harness editor": edit,
    "# Role: test synthesizer": synthesize_test,
}


class ScriptedImprover:
    """An `Upstream` answering improver requests by the behaviour model above."""

    def __init__(self) -> None:
        self.cache = PrefixCache()

    def complete(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        messages = list(request.get("messages") or [])
        system = str(messages[0].get("content") or "") if messages else ""
        role = next((fn for marker, fn in ROLES.items() if system.startswith(marker)), None)
        try:
            message = role(messages) if role else None
        except (ValueError, KeyError, TypeError, StopIteration):
            message = None
        message = message or {"role": "assistant", "content": "I cannot help with that."}
        return envelope(request, message, self.cache.cached_tokens(request, sampling_seed))

    def stream(self, request: Mapping[str, Any], sampling_seed: str) -> Iterator[dict[str, Any]]:
        return to_chunks(self.complete(request, sampling_seed))
