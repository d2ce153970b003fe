"""The scripted improver's answer as test synthesizer (`# Role: test synthesizer`), an offline
stand-in for the `llm` synthesizer's model (not an LLM).

From what the prompt shows, it writes a shell test over the working-directory paths the
instruction quotes: the exact content most clean seed rollouts (else most of all) agree on
(by sha256), else the link target, non-emptiness or existence they agree on, plus the HEAD
branch (and a clean status, when most are clean) of every git repository most of them left.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from typing import Any

from harnesspro.improvers.ask import extract_json
from harnesspro.improvers.testsynth.offline import is_clean

Message = dict[str, Any]


def _inputs(messages: list[Message]) -> Any:
    first_user = next(m for m in messages if m.get("role") == "user")
    return json.loads(extract_json(str(first_user.get("content") or "")))


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
