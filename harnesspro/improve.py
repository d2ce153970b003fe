"""One improvement step: analyse the survivors' train traces, plan under three directives,
edit each plan into a candidate, and later check the plans' predictions."""

from __future__ import annotations

from harnesspro.analyzer import Trace, analyze, prevalence
from harnesspro.context import RunContext
from harnesspro.editor import apply_plan
from harnesspro.planner import check_prediction, plan_all
from harnesspro.records import Candidate, Plan


def train_traces(ctx: RunContext, candidate_ids: set[str]) -> list[Trace]:
    """Train-split traces only: improvers never see validation or test rollouts."""
    rollouts = ctx.ledger.rollouts()
    rows = rollouts[
        rollouts["candidate_id"].isin(list(candidate_ids))
        & rollouts["task_id"].isin(list(ctx.splits.coreset))
    ]
    return [
        Trace(
            key=str(r["key"]),
            candidate_id=str(r["candidate_id"]),
            task_id=str(r["task_id"]),
            passed=r["pass"] == 1,
            trajectory=ctx.run.trajectory(str(r["key"])),
            output_tokens=int(r["output"]),
            n_calls=int(r["n_calls"]),
        )
        for r in rows.to_dict("records")
    ]


def improve(ctx: RunContext, epoch: int, parent_ids: list[str]) -> list[Candidate]:
    """Diagnose, plan and edit; returns this epoch's candidates to evaluate."""
    candidates, scores = ctx.candidates(), ctx.scores()
    diagnoses = analyze(train_traces(ctx, set(parent_ids)))
    ctx.ledger.record_diagnoses(epoch, diagnoses)
    prevalences = {p: prevalence(diagnoses, p, scores[p].n_rollouts) for p in parent_ids}
    for parent, seen in prevalences.items():
        shares = ", ".join(f"{kind} {share:.0%}" for kind, share in sorted(seen.items()))
        ctx.console.print(f"  diagnoses of {parent} (share of its rollouts): {shares or 'none'}")
    plans = plan_all([candidates[p] for p in parent_ids], candidates, prevalences, scores)
    children: dict[str, Candidate] = {}
    for plan in plans:
        existing = list(ctx.candidates().values())
        new_id = f"c{len(existing):03d}"  # ids follow creation order
        edit = apply_plan(plan, candidates[plan.parent_id], ctx.repo, existing, new_id, epoch)
        if edit.new and edit.candidate:
            ctx.ledger.add_candidate(edit.candidate)
        if edit.candidate and edit.candidate.epoch == epoch:
            children[edit.candidate.id] = edit.candidate
        ctx.ledger.record_plan(
            epoch, plan, edit.candidate.id if edit.candidate else None, edit.note
        )
        outcome = " ".join(filter(None, [edit.candidate.id if edit.candidate else "", edit.note]))
        ctx.console.print(
            f"  plan {plan.parent_id} ({plan.directive}) {plan.mechanism}: predicted pass "
            f"{plan.predicted_pass:+.3f}, cost {plan.predicted_cost:+.1%} -> {outcome}"
        )
    return list(children.values())


def check_predictions(ctx: RunContext, epoch: int) -> None:
    """Print, for each of the epoch's plans, whether its predicted directions held."""
    scores = ctx.scores()
    plans = ctx.ledger.plans()
    for row in plans[plans["epoch"] == epoch].to_dict("records"):
        child, parent = str(row["child_id"]), str(row["parent_id"])
        if child not in scores or parent not in scores:
            continue
        plan = Plan(
            parent,
            row["directive"],
            str(row["mechanism"]),
            str(row["rationale"]),
            float(row["predicted_pass"]),
            float(row["predicted_cost"]),
        )
        d_pass, d_cost, held = check_prediction(plan, scores[parent], scores[child])
        ctx.console.print(
            f"  check {child} ({plan.mechanism}): pass {d_pass:+.3f} "
            f"(predicted {plan.predicted_pass:+.3f}), cost {d_cost:+.1%} "
            f"(predicted {plan.predicted_cost:+.1%}) -> {'held' if held else 'missed'}"
        )
