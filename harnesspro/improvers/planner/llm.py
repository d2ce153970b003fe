"""Evolution planner, `llm` mode: free-form plans, one per directive.

The model reads the parent's diagnoses, every candidate's metrics (validation as aggregates
only), the diffs between candidates with their measured effects, the proposer memory (earlier
plans, predictions, measured effects, verdicts) and the catalog as worked examples. Each plan
names its levers, the change in words, the files it will touch, its predicted change in pass
rate and cost, and the coreset tasks it expects to flip. A plan named after a catalog example
with no change text is that catalog edit. The reply is screened plan by plan: a plan with a
bad field, an excluded name, no known lever or the prompt's output example copied back is
dropped with its reason (levers in other
words are mapped to the catalog's), and a directive left without a usable plan gets the
catalog planner's plan for it. A reply with no usable plan is retried once; then the catalog
planner plans, and the plan's rationale says why. The prompt is fitted to
`improver_model.context_tokens` (`fit.Prompt`, its parts cut in the order of RANKED)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harnesspro.core.records import DIRECTIVES, Diagnosis, Directive, Plan, Scope, Score
from harnesspro.harness.mechanisms.catalog import CATALOG, LEVERS
from harnesspro.improvers import lenient
from harnesspro.improvers.account import SearchAccount
from harnesspro.improvers.ask import ask_json, extract_json, load_prompt
from harnesspro.improvers.fit import Prompt
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.improvers.library import harmful
from harnesspro.improvers.planner.catalog import excluded, lineage, plan_for, predict
from harnesspro.improvers.planner.evidence import beliefs_from

PROMPT = "planner.v2"
DIFF_BUDGET = 12_000  # characters of diffs per request, most recent first
MEMORY_ROWS = 40  # most recent lessons shown
LIBRARY_ROWS = 40  # most recent lessons of earlier runs shown
RANKED = (
    "library", "memory", "diffs", "candidates", "examples", "diagnoses", "excluded",
    "coreset_tasks", "parent",
)  # fmt: skip
"""The planner's inputs least valuable first: a small window loses earlier runs' lessons,
then this run's, then the diffs, before it loses the parent's own diagnoses."""
REQUIRED = frozenset({"parent", "excluded", "diagnoses"})
TAIL = frozenset({"library", "memory", "candidates"})  # their newest rows matter most


class PlanOut(BaseModel):
    model_config = ConfigDict(extra="ignore")
    _directive = field_validator("directive", mode="before")(lenient.directive)
    _name = field_validator("name", mode="before")(lenient.slug)
    _lists = field_validator("levers", "files", "expected_flips", mode="before")(lenient.listed)
    _change = field_validator("change", mode="before")(lenient.trimmed(2000))
    _rationale = field_validator("rationale", mode="before")(lenient.trimmed(1000))
    _pass = field_validator("predicted_pass", mode="before")(lenient.clamped(-1.0, 1.0))
    _cost = field_validator("predicted_cost", mode="before")(lenient.clamped(-1.0, 5.0))

    directive: Directive
    name: str = Field(min_length=1, max_length=60, pattern=r"^[a-z0-9][a-z0-9_-]*$")
    """A short slug; the name of a catalog example to apply that example as it is."""
    levers: list[str] = Field(min_length=1)
    scope: Scope = "invariant"
    """invariant = how the agent works; domain = what a practitioner of the tasks knows."""
    change: str = Field(default="", max_length=2000)
    """The change in words (required unless `name` is a catalog example)."""
    files: list[str] = Field(default_factory=list)
    rationale: str = Field(default="", max_length=1000)
    predicted_pass: float = Field(ge=-1.0, le=1.0)
    predicted_cost: float = Field(ge=-1.0, le=5.0)
    expected_flips: list[str] = Field(default_factory=list)

    @field_validator("scope", mode="before")
    @classmethod
    def _scope(cls, value: Any) -> Any:
        return "domain" if isinstance(value, str) and "domain" in value.lower() else "invariant"


class PlannerReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    plans: list[PlanOut]
    dropped: list[str] = Field(default_factory=list)
    """Plans left out, with their reasons (filled while reading the reply)."""

    @model_validator(mode="before")
    @classmethod
    def _screen(cls, data: Any) -> Any:
        return lenient.screen_items(data, "plans", PlanOut, "directive")


def _score(score: Score | None) -> dict[str, Any] | None:
    if score is None:
        return None
    return {k: v for k, v in asdict(score).items() if k != "candidate_id"}


def _diffs(inputs: ImproverInputs) -> list[dict[str, Any]]:
    diffs, budget = [], DIFF_BUDGET
    for d in sorted(inputs.diffs, key=lambda d: d.child_id, reverse=True):
        row = {k: v for k, v in asdict(d).items() if k != "diff"}
        if len(d.diff) <= budget:
            row["diff"], budget = d.diff, budget - len(d.diff)
        diffs.append(row)
    return diffs


def _examples(prevalence: Mapping[str, float], banned: set[str]) -> list[dict[str, Any]]:
    """The catalog as worked examples the planner may cite, adapt or ignore."""
    return [
        {
            "name": m.name, "lever": m.lever, "scope": m.scope, "summary": m.summary,
            "params": m.params,
            "expected_pass": m.expected_pass, "expected_cost": m.expected_cost,
            "addresses": list(m.addresses),
            "catalog_prediction": {
                "pass": round((p := predict(m, prevalence)).d_pass, 4),
                "cost": round(p.d_cost, 4),
            },
        }
        for name, m in CATALOG.items()
        if name not in banned
    ]  # fmt: skip


def planner_inputs(
    inputs: ImproverInputs,
    parent_id: str,
    diagnoses: Sequence[Diagnosis],
    prevalence: Mapping[str, float],
) -> Any:
    """What the model reads to plan for one parent (all from the disclosed inputs)."""
    candidates, scores = inputs.candidates, inputs.scores
    banned = excluded(parent_id, candidates, scores) | set(harmful(inputs.library))
    chain = lineage(parent_id, candidates)
    return {
        "parent": {
            "id": parent_id,
            "changes": [m for c in reversed(chain) if (m := candidates[c].mechanism)],
            "score": _score(scores.get(parent_id)),
            "validation": _score(inputs.validation.get(parent_id)),
        },
        "diagnoses": [
            {k: v for k, v in asdict(d).items() if k != "candidate_id"}
            for d in diagnoses
            if d.candidate_id == parent_id
        ],
        "candidates": [
            {
                "id": c.id,
                "parent": c.parent,
                "epoch": c.epoch,
                "directive": c.directive,
                "change": c.mechanism,
                "score": _score(scores.get(c.id)),
                "validation": _score(inputs.validation.get(c.id)),
            }
            for c in candidates.values()
        ],  # fmt: skip
        "diffs": _diffs(inputs),
        "memory": [asdict(lesson) for lesson in inputs.memory[-MEMORY_ROWS:]],
        "library": [
            {k: v for k, v in asdict(x).items() if k not in ("run", "parent_id")}
            for x in inputs.library[-LIBRARY_ROWS:]
        ],
        "examples": _examples(prevalence, banned),
        "levers": list(LEVERS),
        "coreset_tasks": sorted(inputs.instructions),
        "excluded": sorted(banned),
    }


@functools.cache
def output_example() -> tuple[frozenset[str], frozenset[str]]:
    """The names and change texts of the plans in the prompt's output example (a small
    model copies them back as its own plans)."""
    example = json.loads(extract_json(load_prompt(PROMPT).split("## Output", 1)[1]))
    plans = example["plans"]
    return frozenset(p["name"] for p in plans), frozenset(p["change"] for p in plans)


def echoes_example(plan: PlanOut) -> bool:
    names, changes = output_example()
    return plan.name in names or plan.change.strip() in changes


def screen_plan(plan: PlanOut, banned: set[str], tasks: set[str]) -> PlanOut | str:
    """The plan with its levers in the catalog's words and its flips in the coreset, or why
    it is left out."""
    if plan.name in banned:
        return f"{plan.name!r} is already on this lineage or was tried here"
    if echoes_example(plan):
        return f"{plan.name!r} copies the prompt's output example instead of planning"
    levers = list(dict.fromkeys(x for x in map(lenient.lever, plan.levers) if x))
    if not levers:
        return f"{plan.name!r}: no lever of {plan.levers} is one of `levers`"
    if plan.name not in CATALOG and not plan.change.strip():
        return f"plan {plan.name!r} is not a catalog example and describes no change"
    flips = [t for t in plan.expected_flips if t in tasks]
    return plan.model_copy(update={"levers": levers, "expected_flips": flips})


def checker(banned: set[str], tasks: set[str]) -> Callable[[PlannerReply], PlannerReply | str]:
    """Screens a reply plan by plan: one plan per directive (the first), distinct names; a
    plan that fails is dropped with its reason. A reply with no usable plan is a problem."""

    def check(reply: PlannerReply) -> PlannerReply | str:
        kept: list[PlanOut] = []
        dropped = list(reply.dropped)
        for plan in reply.plans:
            outcome = screen_plan(plan, banned, tasks)
            if isinstance(outcome, str):
                dropped.append(outcome)
            elif any(k.directive == plan.directive or k.name == plan.name for k in kept):
                dropped.append(f"{plan.name!r}: a second plan for {plan.directive} or its name")
            else:
                kept.append(outcome)
        if not kept:
            why = "; ".join(dropped[:3]) or "no plans"
            return f"no usable plan ({why}); give one plan for each of {list(DIRECTIVES)}"
        return PlannerReply(plans=kept, dropped=dropped)

    return check


@dataclass(frozen=True)
class Planning:
    plans: list[Plan]
    fallbacks: dict[str, str]
    """Parent id -> why its plans are the catalog planner's."""


def to_plan(parent_id: str, out: PlanOut) -> Plan:
    """A validated reply as a plan: a catalog example by name, else a free-form change."""
    catalog = out.name in CATALOG and not out.change.strip()
    return Plan(
        parent_id, out.directive, out.name, f"llm planner: {out.rationale}",
        round(out.predicted_pass, 4), round(out.predicted_cost, 4),
        kind="catalog" if catalog else "free", levers=tuple(out.levers),
        change=out.change.strip(), files=tuple(out.files),
        expected_flips=tuple(out.expected_flips), scope=out.scope,
    )  # fmt: skip


def plan_one(
    account: SearchAccount,
    inputs: ImproverInputs,
    parent_id: str,
    diagnoses: Sequence[Diagnosis],
    prevalence: Mapping[str, float],
    bundle: int = 1,
) -> Planning:
    avoid = harmful(inputs.library)
    banned = excluded(parent_id, inputs.candidates, inputs.scores) | set(avoid)
    data = planner_inputs(inputs, parent_id, diagnoses, prevalence)
    prompt = Prompt(load_prompt(PROMPT), "Inputs:", data, RANKED, REQUIRED, TAIL)
    check = checker(banned, set(inputs.instructions))
    answer = ask_json(account, "planner", prompt, PlannerReply, check)
    parent, beliefs = inputs.candidates[parent_id], beliefs_from(inputs.memory)
    scores = inputs.scores
    fallback = plan_for(parent, inputs.candidates, prevalence, scores, avoid, beliefs, bundle)
    if answer.value is None:
        reason = f"catalog fallback (llm planner: {answer.reason})"
        return Planning(
            [replace(p, rationale=f"{reason}: {p.rationale}") for p in fallback],
            {parent_id: answer.reason},
        )
    plans = [to_plan(parent_id, p) for p in answer.value.plans]
    plans += fill_in(plans, fallback)
    order = {d: i for i, d in enumerate(DIRECTIVES)}
    return Planning(sorted(plans, key=lambda p: order[p.directive]), {})


def fill_in(plans: Sequence[Plan], fallback: Sequence[Plan]) -> list[Plan]:
    """The catalog planner's plans for the directives the model's reply left without a usable
    plan (names not already taken)."""
    covered = {p.directive for p in plans}
    names = {p.mechanism for p in plans}
    why = "catalog plan for a directive the llm planner left without a usable plan"
    return [
        replace(p, rationale=f"{why}: {p.rationale}")
        for p in fallback
        if p.directive not in covered and p.mechanism not in names
    ]


def plan_all(
    account: SearchAccount,
    inputs: ImproverInputs,
    diagnoses: Sequence[Diagnosis],
    prevalences: Mapping[str, Mapping[str, float]],
    bundle: int = 1,
) -> Planning:
    """Plans for every parent, in the parents' order (the catalog fallback's plans bundle up
    to `bundle` mechanisms)."""
    plans: list[Plan] = []
    fallbacks: dict[str, str] = {}
    for parent in inputs.parents:
        one = plan_one(account, inputs, parent, diagnoses, prevalences[parent], bundle)
        plans += one.plans
        fallbacks.update(one.fallbacks)
    return Planning(plans, fallbacks)
