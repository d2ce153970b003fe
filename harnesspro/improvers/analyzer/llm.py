"""Trajectory analyzer, `llm` mode: a model reads the deterministic per-task summaries of a
candidate's G rollouts (and may drill into one trajectory) and returns diagnoses."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harnesspro.core.records import Diagnosis, Trace
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.improvers import lenient
from harnesspro.improvers.account import SearchAccount
from harnesspro.improvers.analyzer.rules import analyze, clusters, events_of
from harnesspro.improvers.analyzer.task_stats import task_stats
from harnesspro.improvers.ask import ask_json, load_prompt
from harnesspro.improvers.fit import Prompt
from harnesspro.improvers.inputs import ImproverInputs

PROMPT = "analyzer.v1"
INSTRUCTION_CHARS = 600
EXCERPT_CHARS = 4000
EVIDENCE_CHARS = 200  # per rule-based diagnosis: the numbers carry the rest
RANKED = ("known_kinds", "clusters", "observed", "tasks", "score")
"""The analyzer's inputs least valuable first (the per-task summaries are kept, shrunk)."""


class DiagnosisOut(BaseModel):
    model_config = ConfigDict(extra="ignore")
    _evidence = field_validator("evidence", mode="before")(lenient.trimmed(500))
    _pass = field_validator("effect_pass", mode="before")(lenient.clamped(-1.0, 1.0))
    _cost = field_validator("effect_cost", mode="before")(lenient.clamped(-1.0, 5.0))

    task_id: str
    kind: str = Field(pattern=r"^[a-z][a-z0-9_]{1,47}$")
    count: int = Field(ge=1)
    of: int = Field(ge=1)
    effect_pass: float = Field(ge=-1.0, le=1.0)
    effect_cost: float = Field(ge=-1.0, le=5.0)
    evidence: str = Field(default="", max_length=500)

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: Any) -> Any:
        """'Repeated commands' -> repeated_commands."""
        if not isinstance(value, str):
            return value
        return re.sub(r"[^a-z0-9]+", "_", value.strip().lower()).strip("_")[:48] or value

    @model_validator(mode="after")
    def _count_within_of(self) -> DiagnosisOut:
        self.of = max(self.of, self.count)  # "3 of 2" read as 3 of 3
        return self


class AnalyzerReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    diagnoses: list[DiagnosisOut] = Field(default_factory=list)
    excerpt: str | None = None
    """A rollout key whose trajectory excerpt the analyzer asks for (once)."""
    dropped: list[str] = Field(default_factory=list)
    """Diagnoses left out, with their reasons (filled while reading the reply)."""

    @model_validator(mode="before")
    @classmethod
    def _screen(cls, data: Any) -> Any:
        data = lenient.screen_items(data, "diagnoses", DiagnosisOut, "kind")
        if isinstance(data, dict) and not {"diagnoses", "excerpt"} & set(data):
            # an object with neither (the inputs echoed back, say) is no answer; "no problems"
            # is {"diagnoses": []}
            raise ValueError("the reply has neither `diagnoses` nor `excerpt`")
        return data


def _known(value: object) -> object:
    return None if isinstance(value, float) and math.isnan(value) else value


def known_kinds() -> list[str]:
    return sorted({kind for m in CATALOG.values() for kind in m.addresses})


def analyzer_inputs(traces: Sequence[Trace], candidate_id: str, inputs: ImproverInputs) -> Any:
    """What the model reads about one candidate (all from disclosed train traces)."""
    score = inputs.scores.get(candidate_id)
    tasks = []
    for stats in task_stats(traces):
        mine = [t for t in traces if t.task_id == stats.task_id]
        tasks.append(
            {
                **asdict(stats),
                "instruction": inputs.instructions.get(stats.task_id, "")[:INSTRUCTION_CHARS],
                "rollout_keys": [t.key for t in mine],
            }
        )
    return {
        "candidate": candidate_id,
        # an unknown cost or token count is null for the model, never NaN
        "score": {k: _known(v) for k, v in asdict(score).items()} if score else None,
        "tasks": tasks,
        "clusters": [asdict(c) for c in clusters(traces)],
        "observed": [
            {
                **{k: v for k, v in asdict(d).items() if k != "candidate_id"},
                "evidence": d.evidence[:EVIDENCE_CHARS],
            }
            for d in analyze(traces)
        ],  # fmt: skip
        "known_kinds": known_kinds(),
    }


def excerpt(trace: Trace) -> str:
    """A trajectory compacted to one line per event, cut at EXCERPT_CHARS."""
    lines = []
    for e in events_of(trace):
        text = e.get("command") or e.get("output") or e.get("content") or e.get("text") or ""
        extra = {k: v for k, v in e.items() if k in ("name", "message", "chars")}
        lines.append(f"step {e.get('step')} {e['type']} {json.dumps(extra)} {str(text)[:300]!r}")
    text = "\n".join(lines)
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "\n[... cut ...]"


def checker(traces: Sequence[Trace], drill: bool) -> Callable[[AnalyzerReply], AnalyzerReply | str]:
    """Screens a reply diagnosis by diagnosis: one about a task the candidate never ran is
    dropped with its reason; a reply left with none (and no excerpt asked for) is a problem."""
    tasks = {t.task_id for t in traces}
    keys = {t.key for t in traces}

    def check(reply: AnalyzerReply) -> AnalyzerReply | str:
        if reply.excerpt is not None and not reply.diagnoses:
            if not drill:
                return "the excerpt was already given: answer with diagnoses now"
            return "" if reply.excerpt in keys else f"unknown rollout key {reply.excerpt!r}"
        kept = [d for d in reply.diagnoses if d.task_id in tasks]
        dropped = [f"diagnoses ({d.kind}): unknown task_id {d.task_id!r}" for d in
                   reply.diagnoses if d.task_id not in tasks]  # fmt: skip
        if reply.diagnoses and not kept:
            return f"unknown task_id in every diagnosis; use one of {sorted(tasks)}"
        if not kept and reply.dropped:
            return f"no usable diagnosis ({'; '.join(reply.dropped[:3])})"
        return AnalyzerReply(diagnoses=kept, dropped=[*reply.dropped, *dropped])

    return check


@dataclass(frozen=True)
class Analysis:
    diagnoses: list[Diagnosis]
    fallbacks: dict[str, str]
    """Candidate id -> why its diagnoses are the catalog analyzer's."""


def diagnose_one(account: SearchAccount, inputs: ImproverInputs, candidate_id: str) -> Analysis:
    traces = inputs.traces_of(candidate_id)
    if not traces:
        return Analysis([], {})
    data = analyzer_inputs(traces, candidate_id, inputs)
    prompt = Prompt(load_prompt(PROMPT), "Inputs:", data, RANKED, frozenset({"tasks"}))
    answer = ask_json(account, "analyzer", prompt, AnalyzerReply, checker(traces, True))
    if answer.value is not None and answer.value.excerpt and not answer.value.diagnoses:
        shown = next(t for t in traces if t.key == answer.value.excerpt)
        follow_up = (
            {"role": "assistant", "content": answer.content},
            {"role": "user", "content": f"Excerpt of {shown.key}:\n{excerpt(shown)}"},
        )
        prompt = replace(prompt, follow_up=follow_up)
        answer = ask_json(account, "analyzer", prompt, AnalyzerReply, checker(traces, False))
    if answer.value is None:
        return Analysis(analyze(traces), {candidate_id: answer.reason})
    found = [
        Diagnosis(candidate_id, d.task_id, d.kind, d.count, d.of, d.effect_pass, d.effect_cost,
                  d.evidence)
        for d in answer.value.diagnoses
    ]  # fmt: skip
    return Analysis(found, {})


def diagnose(account: SearchAccount, inputs: ImproverInputs) -> Analysis:
    """Diagnoses of every parent; a parent whose answer stays invalid gets the catalog's."""
    diagnoses: list[Diagnosis] = []
    fallbacks: dict[str, str] = {}
    for parent in inputs.parents:
        one = diagnose_one(account, inputs, parent)
        diagnoses += one.diagnoses
        fallbacks.update(one.fallbacks)
    return Analysis(diagnoses, fallbacks)
