"""A deployable export of one operating point: the harness, a README saying where it came from
and how to run it standalone, provenance.json with the same facts, and a harness.toml named
after the operating point."""

from __future__ import annotations

import json
import math
import re
import shlex
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harnesspro import __version__
from harnesspro.core.money import dollars, tokens
from harnesspro.harness.repo import HarnessRepo
from harnesspro.reports.rundata import RunData
from harnesspro.run.operating_points import OperatingPoint

SEED_REQUIREMENT = "pyyaml"  # the seed agent's one import beyond the standard library
SCRIPTED_NOTE = (
    ": the scripted offline policy, a stand-in for a model, so the figures below are not a "
    "real model's; re-run the search against your endpoint before trusting them"
)
HELD_OUT_FIELDS = (
    "tasks", "pass_rate", "pass_rate_ci", "cost_per_task", "cost_ci", "latency_s", "gain",
    "versus_seed",
)  # fmt: skip


@dataclass(frozen=True)
class Provenance:
    """Where an exported harness comes from and what it measured (JSON-ready: unknown = None)."""

    run: str
    operating_point: str
    candidate: str
    commit: str
    epoch: int
    mechanisms: str
    diff_summary: str
    model: dict[str, Any]
    coreset: dict[str, Any]
    held_out: dict[str, Any] | None
    harnesspro_version: str
    exported_at: str


def _num(value: object) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)  # type: ignore[arg-type]


def provenance(data: RunData, point: OperatingPoint, diff_summary: str) -> Provenance:
    """The export's facts from the run: coreset estimates with their intervals (the selection's
    evidence) and, when the held-out evaluation ran, the test-split figures."""
    mine = data.rollouts[
        (data.rollouts["candidate_id"] == point.candidate)
        & data.rollouts["task_id"].isin(list(data.coreset))
    ]
    model = data.config.model if data.config else None
    held = next(
        (h for h in (data.final or {}).get("harnesses", []) if h["harness"] == point.mode), None
    )
    return Provenance(
        run=data.name,
        operating_point=point.mode,
        candidate=point.candidate,
        commit=point.commit,
        epoch=point.epoch,
        mechanisms=point.mechanisms,
        diff_summary=diff_summary,
        model={
            "name": model.name if model else None,
            "upstream": model.upstream if model else None,
            "priced": not math.isnan(point.cost_per_task),
        },
        coreset={
            "pass_rate": point.pass_rate,
            "pass_rate_ci": point.pass_rate_ci,
            "cost_per_task": _num(point.cost_per_task),
            "cost_ci": point.cost_ci if _num(point.cost_per_task) is not None else None,
            "tokens_per_task": _num(point.tokens_per_task),
            "latency_s": _num(mine["latency_s"].mean()) if not mine.empty else None,
            "rollouts": len(mine),
            "p_nondominated": point.p_nondominated,
        },
        held_out=None if held is None else {k: held.get(k) for k in HELD_OUT_FIELDS},
        harnesspro_version=__version__,
        exported_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )


def rename_manifest(text: str, name: str) -> str:
    """harness.toml with `[harness] name` set to `name` (the rest kept byte for byte)."""
    pattern = re.compile(r'(\[harness\][^\[]*?^name\s*=\s*)"[^"\n]*"', re.M | re.S)
    renamed, count = pattern.subn(lambda m: f'{m.group(1)}"{name}"', text, count=1)
    return renamed if count else text.replace("[harness]", f'[harness]\nname = "{name}"', 1)


def run_block(manifest: dict[str, Any]) -> str:
    """The shell lines that run the harness standalone on one task (README's `Run it`)."""
    requirements = manifest.get("requirements") or [SEED_REQUIREMENT]
    command = " ".join(
        "python3" if part == "{python}" else shlex.quote(part) for part in manifest["command"]
    )
    return "\n".join(
        [
            f"python3 -m pip install --quiet {' '.join(shlex.quote(r) for r in requirements)}",
            "mkdir -p work out",
            'printf \'{"id": "demo", "instruction": "%s", "workdir": "%s"}\\n\' \\',
            '  "Create hello.txt in the working directory containing the word hello." \\',
            '  "$PWD/work" > task.json',
            f"HARNESSPRO_TASK=task.json HARNESSPRO_OUT=out {command}",
            "cat out/result.json",
        ]
    )


def _interval(ci: list[float] | tuple[float, float] | None, fmt: str, unit: str = "") -> str:
    if not ci:
        return ""
    return f" ({unit}{format(ci[0], fmt)} to {unit}{format(ci[1], fmt)})"


def _measurements(p: Provenance, confidence: float) -> list[str]:
    """The README's facts: what was exported, and how it measured on the coreset and the
    held-out split."""
    c, h = p.coreset, p.held_out
    level = f"{confidence:.0%} bootstrap interval"
    lines = [
        f"- **Mechanisms** (from the seed): {p.mechanisms}",
        f"- **Diff from the seed**: {p.diff_summary or 'none (this is the seed)'}",
        f"- **Tuned against model**: `{p.model['name']}` ({p.model['upstream']} upstream)"
        + (SCRIPTED_NOTE if p.model["upstream"] == "scripted" else ""),
        f"- **Coreset (search) measurements**, {c['rollouts']} rollouts, {level} in brackets:",
        f"  - pass rate {c['pass_rate']:.1%}{_interval(c['pass_rate_ci'], '.1%')}",
        f"  - cost per task {dollars(c['cost_per_task'])}{_interval(c['cost_ci'], '.4f', '$')}"
        + ("" if p.model["priced"] else " (the model has no price: cost is unknown)"),
        f"  - {tokens(c['tokens_per_task'])} per task, latency "
        + ("unknown" if c["latency_s"] is None else f"{c['latency_s']:.1f} s per task"),
    ]
    if not h:
        return [*lines, "- **Held-out test split**: not evaluated (`harnesspro eval RUN`)."]
    return [
        *lines,
        f"- **Held-out test split** ({h['tasks']} tasks, official tests): pass rate "
        f"{h['pass_rate']:.1%}{_interval(h['pass_rate_ci'], '.1%')}, "
        f"{dollars(h['cost_per_task'])} per task, latency {h['latency_s']:.1f} s, "
        f"{h['versus_seed']} vs the seed",
    ]


def _standalone(p: Provenance, manifest: dict[str, Any]) -> list[str]:
    """How to run the export outside HarnessPro, and the warning that nothing sandboxes it."""
    return [
        "## Run it standalone",
        "",
        "The harness speaks to any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp, "
        "Ollama, ...). Set the endpoint, a key and the model, in this folder:",
        "",
        "```sh",
        "export OPENAI_BASE_URL=https://api.openai.com/v1   # your endpoint",
        "export OPENAI_API_KEY=sk-...                       # its key",
        f"export HARNESSPRO_MODEL={p.model['name']}",
        "```",
        "",
        "then give it a task (an instruction and a working directory) and run it; it writes "
        "`out/trajectory.jsonl` and `out/result.json`:",
        "",
        "```sh",
        run_block(manifest),
        "```",
        "",
        "**Outside HarnessPro nothing sandboxes its commands**: the agent runs shell commands "
        "as you, in the working directory and anywhere else they reach. Run it in a "
        "container or a throwaway machine.",
        "",
    ]


def readme(p: Provenance, manifest: dict[str, Any], confidence: float) -> str:
    """README.md of the export."""
    head = [
        f"# {p.operating_point}: a HarnessPro operating point",
        "",
        f"Exported from run `{p.run}`: candidate `{p.candidate}` (epoch {p.epoch}), commit "
        f"`{p.commit}`, by harnesspro {p.harnesspro_version}. The same facts are in "
        "`provenance.json`.",
        "",
    ]
    body = [*_measurements(p, confidence), "", *_standalone(p, manifest)]
    return "\n".join([*head, *body])


def export_operating_point(
    data: RunData, point: OperatingPoint, out: Path, seed_commit: str | None
) -> Provenance:
    """Write the harness of `point` into `out` with README.md, provenance.json and a
    harness.toml named after the point."""
    repo = HarnessRepo(data.root / "harness", data.root / "worktrees")
    repo.export(point.commit, out)
    summary = str(repo.repo.git.diff("--shortstat", seed_commit, point.commit)).strip()
    p = provenance(data, point, summary if seed_commit else "")
    manifest_path = out / "harness.toml"
    manifest_path.write_text(rename_manifest(manifest_path.read_text(), point.mode))
    manifest = tomllib.loads(manifest_path.read_text())["harness"]
    theirs = out / "README.md"
    kept = f"\n## The harness's own README\n\n{theirs.read_text()}" if theirs.is_file() else ""
    theirs.write_text(readme(p, manifest, data.confidence) + kept)
    (out / "provenance.json").write_text(json.dumps(p.__dict__, indent=2, allow_nan=False) + "\n")
    return p
