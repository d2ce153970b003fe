"""The scripted improver: an offline stand-in for the `llm` improver's model (not an LLM).

It lets `evolution.improver: llm` run end to end without credentials, through the same
prompts, search gateway, validation, sandboxed editing agent and fallbacks as a real model.
Like the scripted policy, it answers only from what a model would see, the messages:

- analyzer (system prompt `# Role: trajectory analyzer`): returns the `observed` rule-based
  diagnoses of its inputs as its own;
- planner (`# Role: evolution planner`): for cost-first and performance-first, picks a
  catalog example by its `catalog_prediction` the way the catalog planner ranks them; for
  balanced, proposes one of its own ideas (`search/ideas.py`: prompt text in its own words,
  hooks written as code) ranked by how often the diagnoses show what the idea addresses;
- editor (`# Role: harness editor`): for a catalog plan, reads the files the example's
  `reference_change` touches and the manifest (its knobs), applies the mechanism to those
  contents and writes them back;
  for its own idea, reads the plan's files, writes the change the plan's words describe
  (new prompt text, a new hook module and its registration), runs `run_checks`, then
  replies with a summary;
- test synthesizer (`# Role: test synthesizer`): `search/scripted_synth.py`.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from harnesspro.core.records import DIRECTIVES, Directive
from harnesspro.execution.gateway.streaming import to_chunks
from harnesspro.execution.gateway.upstream import PrefixCache, envelope
from harnesspro.harness.mechanisms.catalog import CATALOG, Mechanism
from harnesspro.improvers.ask import extract_json
from harnesspro.improvers.planner.catalog import RELEVANCE_FLOOR, preference
from harnesspro.improvers.planner.evidence import Prediction
from harnesspro.improvers.roles.ideas import IDEAS, wording
from harnesspro.improvers.roles.scripted_synth import synthesize_test

Message = dict[str, Any]
CHECKPOINT_AFTER = 2  # tool calls before its checkpoint notice (the smoke task makes 2+)


def _inputs(messages: list[Message]) -> Any:

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


def _relevance(addresses: tuple[str, ...], data: Any) -> float:
    """How often the parent's rollouts showed what an idea addresses (as the catalog does)."""
    n = ((data.get("parent") or {}).get("score") or {}).get("n_rollouts") or 0
    shown: dict[str, int] = {}
    for d in data.get("diagnoses", []):
        shown[d["kind"]] = shown.get(d["kind"], 0) + int(d.get("count", 0))
    seen = max((min(1.0, shown.get(k, 0) / n) for k in addresses if n), default=0.0)
    return RELEVANCE_FLOOR + (1 - RELEVANCE_FLOOR) * seen


def _free_plan(directive: Directive, data: Any, taken: set[str]) -> dict[str, Any] | None:
    """The scripted planner's own idea for this parent, in its own words."""
    banned = set(data.get("excluded", [])) | taken
    ranked = []
    for idea in IDEAS.values():
        if idea.name in banned:
            continue
        weight = _relevance(idea.addresses, data)
        ranked.append((idea.predicted_pass * weight - idea.predicted_cost * weight, idea, weight))
    if not ranked:
        return None
    _, idea, weight = max(ranked, key=lambda r: (r[0], r[1].name))
    calls = CHECKPOINT_AFTER
    text = wording(idea.name, str(data["parent"]["id"]) + directive)
    failing = sorted(
        {d["task_id"] for d in data.get("diagnoses", []) if d["kind"] in idea.addresses}
    )
    tasks = set(data.get("coreset_tasks", []))
    return {
        "directive": directive, "name": idea.name, "levers": list(idea.levers),
        "change": idea.describe(text, calls), "files": list(idea.files),
        "rationale": f"own idea for {', '.join(idea.addresses)} (relevance {weight:.2f})",
        "predicted_pass": round(idea.predicted_pass * weight, 4),
        "predicted_cost": round(idea.predicted_cost * weight, 4),
        "expected_flips": [t for t in failing if t in tasks][:3],
    }  # fmt: skip


def _catalog_plan(directive: Directive, options: list[Prediction], taken: set[str]) -> Any:
    free = [p for p in options if p.mechanism.name not in taken]
    if not free:
        return None
    best = min(free, key=lambda p: (*preference(directive, p), p.mechanism.name))
    return {
        "directive": directive, "name": best.mechanism.name, "levers": [best.mechanism.lever],
        "change": "", "files": [],
        "rationale": f"{best.mechanism.summary} ({best.mechanism.lever})",
        "predicted_pass": best.d_pass, "predicted_cost": best.d_cost,
    }  # fmt: skip


def plan(messages: list[Message]) -> Message:
    """Catalog examples for cost-first and performance-first, its own idea for balanced."""
    data = _inputs(messages)
    options = [
        Prediction(
            CATALOG[m["name"]], m["catalog_prediction"]["pass"], m["catalog_prediction"]["cost"]
        )
        for m in data["examples"]
        if m["name"] in CATALOG
    ]
    plans: list[dict[str, Any]] = []
    for directive in DIRECTIVES:
        taken = {x["name"] for x in plans}
        catalog = _catalog_plan(directive, options, taken)
        own = _free_plan(directive, data, taken)
        chosen = own or catalog if directive == "balanced" else catalog or own
        if chosen:
            plans.append(chosen)
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


def _contents(messages: list[Message], asked: list[Message]) -> dict[str, str]:
    """What the first round of read_file calls returned, by path."""
    results = {
        m.get("tool_call_id"): str(m.get("content")) for m in messages if m["role"] == "tool"
    }
    contents = {}
    for call in asked[0]["tool_calls"] if asked else []:
        path = json.loads(call["function"]["arguments"])["path"]
        contents[path] = results.get(call["id"], "")
    return contents


def _writes(files: Mapping[str, str]) -> Message:
    calls = [
        _call(100 + n, "write_file", path=rel, content=text)
        for n, (rel, text) in enumerate(sorted(files.items()))
    ]
    return {"role": "assistant", "content": "", "tool_calls": calls}


def _edit_free(data: Any, messages: list[Message], asked: list[Message]) -> Message:
    """Its own idea, written from the plan's words: read, write, run the checks, summarise."""
    plan, layout = data["plan"], data["layout"]
    idea = IDEAS.get(plan["name"])
    if idea is None:
        return {"role": "assistant", "content": f"I do not know how to do {plan['name']}."}
    if not asked:
        wanted = [rel for rel in [*plan["files"], "harness.yaml"] if rel in layout["files"]]
        calls = [_call(n, "read_file", path=rel) for n, rel in enumerate(dict.fromkeys(wanted))]
        return {"role": "assistant", "content": "", "tool_calls": calls}
    names = [c["function"]["name"] for m in asked for c in m["tool_calls"]]
    if "write_file" not in names:
        try:
            return _writes(idea.write(_contents(messages, asked), plan["change"]))
        except (ValueError, KeyError, TypeError, AssertionError) as exc:
            return {"role": "assistant", "content": f"I could not write it: {exc}"}
    if "run_checks" not in names:
        return {"role": "assistant", "content": "", "tool_calls": [_call(200, "run_checks")]}
    return {"role": "assistant", "content": f"Implemented {plan['name']}: {plan['change']}"}


def edit(messages: list[Message]) -> Message:
    data = _inputs(messages)
    asked = [m for m in messages if m.get("role") == "assistant" and m.get("tool_calls")]
    if data["plan"].get("kind") == "free":
        return _edit_free(data, messages, asked)
    mechanism = CATALOG.get(data["plan"]["name"])
    wrote = any(c["function"]["name"] == "write_file" for m in asked for c in m["tool_calls"])
    if mechanism is None or wrote:
        return {"role": "assistant", "content": f"Applied {data['plan']['name']}."}
    reference = str((data.get("example") or {}).get("reference_change", ""))
    if not asked:
        # the manifest too: its [[knob]] tables say where each setting the mechanism sets lives
        paths = [*_touched(reference), *(["harness.toml"] if _touched(reference) else [])]
        calls = [_call(n, "read_file", path=rel) for n, rel in enumerate(paths)]
        if calls:
            return {"role": "assistant", "content": "", "tool_calls": calls}
    try:
        named = _touched(reference, "+++ b/")
        changed = _applied(mechanism, _contents(messages, asked), named)
    except (OSError, KeyError, TypeError, ValueError, AttributeError):
        return {"role": "assistant", "content": "The mechanism does not apply to this harness."}
    return _writes(changed)


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
