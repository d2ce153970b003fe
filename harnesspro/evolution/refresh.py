"""Failure-conditioned coreset refresh (`coreset.refresh: failures`).

After an epoch, the coreset trades tasks that every survivor already solves for train-pool
(validation) tasks that none solves yet, as many as both sides allow. A survivor *solves* a
task when it passed most (more than half) of its scored rollouts on it; a task where some
survivor has no rollout is neither. The DPP picks the newcomers among the unsolved tasks, so
they stay diverse. Search effort then goes where the harness fails.

The traded-in tasks leave the validation split; the solved tasks leave the search altogether
(they do not go back to validation: improvers have read their traces). The seed and the
survivors get G coreset rollouts on the new tasks at once, frozen tests are synthesized from
the seed's rollouts (validation tasks usually have theirs already), and from then on a
candidate is scored only when it has rollouts on every current coreset task: scores before
and after a refresh are never mixed, the Pareto comparison is always on one common task set.
The new splits and every refresh (epoch, dropped, added) are kept in the ledger's meta, so a
resumed run continues on the refreshed coreset.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from harnesspro.core.records import RolloutRow
from harnesspro.evaluation.rollouts import evaluate
from harnesspro.evaluation.scoring import freeze_tests
from harnesspro.evolution.score_step import score_pending
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.tasks.coreset_memo import remembered_coreset


@dataclass(frozen=True)
class Trade:
    dropped: tuple[str, ...]
    added: tuple[str, ...]


def solvers(rows: Sequence[RolloutRow], survivors: Sequence[str], task: str) -> list[bool] | None:
    """Per survivor, whether it solves `task` (passes most of its scored rollouts on it);
    None when a survivor has no scored rollout there (unknown is neither)."""
    verdicts = []
    for survivor in survivors:
        passes = [
            r.passed
            for r in rows
            if r.task_id == task and r.candidate_id == survivor and r.passed is not None
        ]
        if not passes:
            return None
        verdicts.append(sum(passes) / len(passes) > 0.5)
    return verdicts


def solved_by_all(
    rows: Sequence[RolloutRow], survivors: Sequence[str], tasks: Sequence[str]
) -> list[str]:
    """Tasks every survivor solves."""
    return [t for t in tasks if (v := solvers(rows, survivors, t)) is not None and all(v)]


def solved_by_none(
    rows: Sequence[RolloutRow], survivors: Sequence[str], tasks: Sequence[str]
) -> list[str]:
    """Tasks no survivor solves (each has rollouts there)."""
    return [t for t in tasks if (v := solvers(rows, survivors, t)) is not None and not any(v)]


def on(rows: Sequence[RolloutRow], split: str, tasks: Sequence[str]) -> list[RolloutRow]:
    """The rows of one split on these tasks that count (infrastructure faults never do)."""
    return [
        r for r in rows if r.split == split and r.task_id in tasks and r.status != "infra_error"
    ]


def trade(
    rollouts: Sequence[RolloutRow],
    survivors: Sequence[str],
    coreset: Sequence[str],
    validation: Sequence[str],
    instructions: Mapping[str, str],
) -> Trade:
    """Which coreset tasks to drop and which validation tasks to add (see the docstring)."""
    solved = solved_by_all(on(rollouts, "coreset", coreset), survivors, coreset)
    unsolved = solved_by_none(on(rollouts, "validation", validation), survivors, validation)
    k = min(len(solved), len(unsolved))
    if k == 0:
        return Trade((), ())
    picked = remembered_coreset([instructions[t] for t in unsolved], k)
    return Trade(tuple(sorted(solved)[:k]), tuple(sorted(unsolved[i] for i in picked)))


def refresh_coreset(
    ctx: RunContext, epoch: int, survivors: Sequence[str], cap: int | None
) -> RunContext:
    """Trade tasks after `epoch` when the config asks for it; returns the context to go on
    with (the same one when nothing was traded)."""
    if ctx.config.coreset.refresh != "failures" or epoch >= ctx.config.evolution.epochs:
        return ctx  # after the last epoch no search would use the new tasks
    splits = ctx.splits
    instructions = {t: ctx.tasks[t].instruction for t in splits.validation}
    rows = ctx.ledger.rollout_rows()
    done = trade(rows, survivors, splits.coreset, splits.validation, instructions)
    if not done.added:
        ctx.console.print(f"  coreset refresh after epoch {epoch}: nothing to trade", markup=False)
        return ctx
    new = replace(
        splits,
        coreset=tuple(sorted(set(splits.coreset) - set(done.dropped) | set(done.added))),
        validation=tuple(t for t in splits.validation if t not in done.added),
    )
    fresh = replace(ctx, splits=new)
    candidates = ctx.candidates()
    who = [candidates[c] for c in dict.fromkeys([SEED_ID, *survivors])]
    need = len(who) * len(done.added) * ctx.config.evolution.rollouts_per_task
    if cap is not None and cap < need:
        ctx.console.print(
            f"  coreset refresh after epoch {epoch} skipped: it needs {need} rollouts, the "
            f"cap leaves {cap}",
            markup=False,
        )
        return ctx
    notes = [*evaluate(fresh, who, epoch, "coreset", done.added).notes]
    notes += freeze_tests(fresh, new.coreset)
    for line in notes:
        ctx.console.print(f"  {line}", markup=False)
    score_pending(fresh)
    history = json.loads(ctx.ledger.meta("refreshes") or "[]")
    history.append({"epoch": epoch, "dropped": list(done.dropped), "added": list(done.added)})
    ctx.ledger.set_meta("refreshes", json.dumps(history))
    ctx.ledger.set_meta("splits", json.dumps({k: list(v) for k, v in vars(new).items()}))
    ctx.run.write_splits(new)
    ctx.console.print(
        f"  coreset refresh after epoch {epoch}: dropped {', '.join(done.dropped)} (solved by "
        f"every survivor), added {', '.join(done.added)} (solved by none)",
        markup=False,
    )
    return fresh
