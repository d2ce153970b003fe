"""Evolution planner (catalog mode): one mechanism-level plan per directive per survivor."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harnesspro.core.cost_axis import axis_of, value_on
from harnesspro.core.money import dollars
from harnesspro.core.records import DIRECTIVES, Candidate, Directive, Plan, Score
from harnesspro.harness.mechanisms.catalog import BUNDLE_SEP, CATALOG, Mechanism, bundle_name
from harnesspro.improvers.planner.evidence import NO_EVIDENCE, Beliefs, Prediction, blend
from harnesspro.improvers.planner.exploration import Exploration

RELEVANCE_FLOOR = 0.25  # a mechanism still does something where its problem was not seen
MAX_PASS_LOSS = 0.02  # cost-first accepts at most this predicted loss of pass rate


def lineage(candidate_id: str, candidates: Mapping[str, Candidate]) -> list[str]:
    """The candidate and its ancestors, nearest first."""
    chain = []
    current: str | None = candidate_id
    while current is not None:
        chain.append(current)
        current = candidates[current].parent
    return chain


def dominated_by_parent(child: Score, parent: Score) -> bool:
    """No benefit on either axis: not more passes and not cheaper."""
    return child.pass_rate <= parent.pass_rate and child.cost_per_task >= parent.cost_per_task


def excluded(
    candidate_id: str, candidates: Mapping[str, Candidate], scores: Mapping[str, Score]
) -> set[str]:
    """Mechanisms already on this lineage or tried from this candidate, or tried from one of
    its ancestors without benefit."""
    chain = set(lineage(candidate_id, candidates))
    banned = {candidates[c].mechanism for c in chain}
    for c in candidates.values():
        tried_here = c.parent == candidate_id
        measured = c.parent in chain and c.id in scores and c.parent in scores
        if tried_here or (measured and dominated_by_parent(scores[c.id], scores[str(c.parent)])):
            banned.add(c.mechanism)
    return {part for m in banned if m for part in m.split(BUNDLE_SEP)}


def predict(
    mechanism: Mechanism, prevalence: Mapping[str, float], beliefs: Beliefs = NO_EVIDENCE
) -> Prediction:
    """Scale the catalog's expected effect by how often the addressed problems were seen (as
    far as the run still credits those symptoms), then blend in the mechanism's own measured
    effects (planner/evidence.py)."""
    seen = max(
        (prevalence.get(kind, 0.0) * beliefs.credible(kind) for kind in mechanism.addresses),
        default=0.0,
    )
    weight = RELEVANCE_FLOOR + (1 - RELEVANCE_FLOOR) * seen
    d_pass, d_cost = mechanism.expected_pass * weight, mechanism.expected_cost * weight
    measured = beliefs.measured.get(mechanism.name, ())
    d_pass = blend(d_pass, (p for p, _ in measured))
    d_cost = blend(d_cost, (c for _, c in measured if c is not None))
    return Prediction(mechanism, d_pass, d_cost)


def preference(directive: Directive, p: Prediction) -> tuple[float, ...]:
    """Sort key, smaller is better."""
    if directive == "cost-first":
        return (p.d_pass < -MAX_PASS_LOSS, p.d_cost, -p.d_pass)
    if directive == "performance-first":
        return (-p.d_pass, p.d_cost)
    return (-(p.d_pass - p.d_cost), -p.d_pass)


def agrees(directive: Directive, p: Prediction) -> bool:
    """Whether a mechanism's predicted effect serves the directive on its own."""
    return serves(directive, p.d_pass, p.d_cost)


def serves(directive: Directive, d_pass: float, d_cost: float) -> bool:
    """Whether a predicted change (pass rate, relative cost) serves the directive."""
    if directive == "cost-first":
        return d_cost < 0 and d_pass >= -MAX_PASS_LOSS
    if directive == "performance-first":
        return d_pass > 0
    return d_pass - d_cost > 0


def bundle_for(
    directive: Directive, options: list[Prediction], size: int, leaders: set[str], taken: set[str]
) -> list[Prediction]:
    """The directive's best mechanism that leads no earlier plan (`leaders`), joined by the
    next best that agree with the directive (at most `size` in all, one per lever); members
    drop from the end while that bundle equals an earlier plan (`taken`)."""
    ranked = sorted(options, key=lambda p: (*preference(directive, p), p.mechanism.name))
    lead = next((p for p in ranked if p.mechanism.name not in leaders), None)
    if lead is None:
        return []
    chosen = [lead]
    for p in ranked:
        fits = p.mechanism.lever not in {c.mechanism.lever for c in chosen}
        if len(chosen) < size and fits and agrees(directive, p):
            chosen.append(p)
    while len(chosen) > 1 and bundle_name([c.mechanism for c in chosen]) in taken:
        chosen.pop()
    return chosen


def combined(parts: list[Prediction]) -> Prediction:
    """A bundle's predicted effect: pass-rate changes add, relative cost changes multiply."""
    d_cost = 1.0
    for p in parts:
        d_cost *= 1 + p.d_cost
    return Prediction(parts[0].mechanism, sum(p.d_pass for p in parts), d_cost - 1)


def plan_for(
    parent: Candidate,
    candidates: Mapping[str, Candidate],
    prevalence: Mapping[str, float],
    scores: Mapping[str, Score],
    avoid: Mapping[str, str] | None = None,
    beliefs: Beliefs = NO_EVIDENCE,
    bundle: int = 1,
    exploration: Exploration | None = None,
    disjoint: bool = False,
) -> list[Plan]:
    """Up to three distinct plans for one survivor, one per directive, each of up to `bundle`
    mechanisms (`bundle_for`); changes in `avoid` (the experience library's net-harmful
    mechanisms and bundles, with evidence) are never planned, and predictions take the run's
    `beliefs` into account. With `exploration`, mechanisms are ranked by its draws
    (planner/exploration.py); the plans still record the predicted means. With `disjoint`, a
    mechanism in one plan is left out of the later ones (screening more mechanisms at once)."""
    banned = excluded(parent.id, candidates, scores) | set(avoid or {})
    options = [predict(m, prevalence, beliefs) for name, m in CATALOG.items() if name not in banned]
    means = {p.mechanism.name: p for p in options}
    if exploration is not None:
        options = exploration.ranked(parent.id, options, beliefs)
    seen = ", ".join(f"{k} {v:.0%}" for k, v in sorted(prevalence.items()) if v > 0)
    plans: list[Plan] = []
    leaders: set[str] = set()
    avoided_bundles = {name for name in avoid or {} if BUNDLE_SEP in name}
    used: set[str] = set()
    for directive in DIRECTIVES:
        taken = {x.mechanism for x in plans} | avoided_bundles
        free = [p for p in options if p.mechanism.name not in used]
        chosen = bundle_for(directive, free, bundle, leaders, taken)
        parts = [means[p.mechanism.name] for p in chosen]
        if not parts:
            break
        leaders.add(parts[0].mechanism.name)
        if disjoint:
            used |= {p.mechanism.name for p in parts}
        plans.append(as_plan(parent.id, directive, parts, scores[parent.id], seen))
    return plans


def as_plan(
    parent_id: str, directive: Directive, parts: list[Prediction], score: Score, seen: str
) -> Plan:
    """One plan from the chosen mechanisms' predictions (their effects combined)."""
    effect = combined(parts)
    domain = any(p.mechanism.scope == "domain" for p in parts)
    return Plan(
        parent_id=parent_id,
        directive=directive,
        mechanism=bundle_name([p.mechanism for p in parts]),
        rationale=(
            "; ".join(f"{p.mechanism.summary} ({p.mechanism.lever})" for p in parts)
            + f"; parent pass {score.pass_rate:.0%} at "
            f"{dollars(score.cost_per_task)}/task; seen: {seen or 'none'}"
        ),
        predicted_pass=round(effect.d_pass, 4),
        predicted_cost=round(effect.d_cost, 4),
        scope="domain" if domain else "invariant",
    )


POINT_PASS_TOLERANCE = 0.05  # a point prediction of pass rate holds within 5 points
POINT_COST_TOLERANCE = 0.10  # and of cost within 10% (relative)


def within(value: float, interval: tuple[float, ...], point: float, tolerance: float) -> bool:
    """Whether `value` lies in the prediction's own interval, or within `tolerance` of a point
    prediction that has none."""
    low, high = interval if len(interval) == 2 else (point - tolerance, point + tolerance)
    return low - 1e-9 <= value <= high + 1e-9


def check_prediction(plan: Plan, parent: Score, child: Score) -> tuple[float, float, bool]:
    """Measured (d_pass, relative d_cost) and whether both lie in the prediction's interval
    (`within`); when a cost is unknown (unpriced model) tokens per task stand in for it, and
    model calls per task when token counts are unknown too (`harnesspro.core.cost_axis`)."""
    d_pass = child.pass_rate - parent.pass_rate
    axis = axis_of({"parent": parent, "child": child})
    before, after = value_on(parent, axis), value_on(child, axis)
    d_cost = after / before - 1 if before else 0.0
    pass_held = within(d_pass, plan.pass_interval, plan.predicted_pass, POINT_PASS_TOLERANCE)
    cost_held = within(d_cost, plan.cost_interval, plan.predicted_cost, POINT_COST_TOLERANCE)
    return d_pass, d_cost, cost_held and pass_held


def plan_all(
    parents: Sequence[Candidate],
    candidates: Mapping[str, Candidate],
    prevalences: Mapping[str, Mapping[str, float]],
    scores: Mapping[str, Score],
    avoid: Mapping[str, str] | None = None,
    beliefs: Beliefs = NO_EVIDENCE,
    bundle: int = 1,
    exploration: Exploration | None = None,
    disjoint: bool = False,
) -> list[Plan]:
    """Plans for every survivor (never a mechanism in `avoid`)."""
    return [
        plan
        for parent in parents
        for plan in plan_for(
            parent,
            candidates,
            prevalences[parent.id],
            scores,
            avoid,
            beliefs,
            bundle,
            exploration,
            disjoint,
        )
    ]
