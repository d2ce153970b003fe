"""Evolution planner, `llm` mode: a model reads the parent's diagnoses, every candidate's
metrics and the diffs between candidates, and writes one catalog-mechanism plan per
directive. An invalid answer is retried once; then the catalog planner plans, and the
plan's rationale says why."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harnesspro.disclosure import ImproverInputs
from harnesspro.mechanisms.catalog import CATALOG
from harnesspro.planner.catalog import excluded, lineage, plan_for, predict
from harnesspro.records import DIRECTIVES, Diagnosis, Directive, Plan, Score
from harnesspro.search.account import SearchAccount
from harnesspro.search.ask import ask_json, load_prompt, render

PROMPT = "planner.v1"
DIFF_BUDGET = 12_000  # characters of diffs per request, most recent first


class PlanOut(BaseModel):
    model_config = ConfigDict(extra="ignore")

    directive: Directive
    mechanism: str
    rationale: str = Field(max_length=1000)
    predicted_pass: float = Field(ge=-1.0, le=1.0)
    predicted_cost: float = Field(ge=-1.0, le=5.0)


class PlannerReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    plans: list[PlanOut]


def _score(score: Score | None) -> dict[str, Any] | None:
    if score is None:
        return None
    return {k: v for k, v in asdict(score).items() if k != "candidate_id"}


def planner_inputs(
    inputs: ImproverInputs,
    parent_id: str,
    diagnoses: Sequence[Diagnosis],
    prevalence: Mapping[str, float],
) -> Any:
    """What the model reads to plan for one parent (all from the disclosed inputs)."""
    candidates, scores = inputs.candidates, inputs.scores
    banned = excluded(parent_id, candidates, scores)
    chain = lineage(parent_id, candidates)
    diffs, budget = [], DIFF_BUDGET
    for d in sorted(inputs.diffs, key=lambda d: d.child_id, reverse=True):
        row = {k: v for k, v in asdict(d).items() if k != "diff"}
        if len(d.diff) <= budget:
            row["diff"], budget = d.diff, budget - len(d.diff)
        diffs.append(row)
    return {
        "parent": {
            "id": parent_id,
            "mechanisms": [m for c in reversed(chain) if (m := candidates[c].mechanism)],
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
                "mechanism": c.mechanism,
                "score": _score(scores.get(c.id)),
                "validation": _score(inputs.validation.get(c.id)),
            }
            for c in candidates.values()
        ],  # fmt: skip
        "diffs": diffs,
        "mechanisms": [
            {
                "name": m.name,
                "lever": m.lever,
                "summary": m.summary,
                "expected_pass": m.expected_pass,
                "expected_cost": m.expected_cost,
                "addresses": list(m.addresses),
                "catalog_prediction": {
                    "pass": round((p := predict(m, prevalence)).d_pass, 4),
                    "cost": round(p.d_cost, 4),
                },
            }
            for name, m in CATALOG.items()
            if name not in banned
        ],  # fmt: skip
        "excluded": sorted(banned),
    }


def checker(banned: set[str]) -> Callable[[PlannerReply], str]:
    available = [name for name in CATALOG if name not in banned]
    wanted = min(len(DIRECTIVES), len(available))

    def check(reply: PlannerReply) -> str:
        for plan in reply.plans:
            if plan.mechanism not in CATALOG:
                return f"unknown mechanism {plan.mechanism!r}; choose one of {available}"
            if plan.mechanism in banned:
                return f"mechanism {plan.mechanism!r} is excluded on this lineage"
        directives = [p.directive for p in reply.plans]
        if len(set(directives)) != len(directives) or len(directives) != wanted:
            return f"give exactly one plan for each of {list(DIRECTIVES)[:wanted]}"
        if len({p.mechanism for p in reply.plans}) != len(reply.plans):
            return "the plans must use different mechanisms"
        return ""

    return check


@dataclass(frozen=True)
class Planning:
    plans: list[Plan]
    fallbacks: dict[str, str]
    """Parent id -> why its plans are the catalog planner's."""


def plan_one(
    account: SearchAccount,
    inputs: ImproverInputs,
    parent_id: str,
    diagnoses: Sequence[Diagnosis],
    prevalence: Mapping[str, float],
) -> Planning:
    banned = excluded(parent_id, inputs.candidates, inputs.scores)
    data = planner_inputs(inputs, parent_id, diagnoses, prevalence)
    messages = [
        {"role": "system", "content": load_prompt(PROMPT)},
        {"role": "user", "content": render("Inputs:", data)},
    ]
    answer = ask_json(account, "planner", messages, PlannerReply, checker(banned))
    if answer.value is None:
        fallback = plan_for(
            inputs.candidates[parent_id], inputs.candidates, prevalence, inputs.scores
        )
        reason = f"catalog fallback (llm planner: {answer.reason})"
        return Planning(
            [Plan(p.parent_id, p.directive, p.mechanism, f"{reason}: {p.rationale}",
                  p.predicted_pass, p.predicted_cost) for p in fallback],
            {parent_id: answer.reason},
        )  # fmt: skip
    order = {d: i for i, d in enumerate(DIRECTIVES)}
    chosen = sorted(answer.value.plans, key=lambda p: order[p.directive])
    return Planning(
        [Plan(parent_id, p.directive, p.mechanism, f"llm planner: {p.rationale}",
              round(p.predicted_pass, 4), round(p.predicted_cost, 4)) for p in chosen],
        {},
    )  # fmt: skip


def plan_all(
    account: SearchAccount,
    inputs: ImproverInputs,
    diagnoses: Sequence[Diagnosis],
    prevalences: Mapping[str, Mapping[str, float]],
) -> Planning:
    """Plans for every parent, in the parents' order."""
    plans: list[Plan] = []
    fallbacks: dict[str, str] = {}
    for parent in inputs.parents:
        one = plan_one(account, inputs, parent, diagnoses, prevalences[parent])
        plans += one.plans
        fallbacks.update(one.fallbacks)
    return Planning(plans, fallbacks)
