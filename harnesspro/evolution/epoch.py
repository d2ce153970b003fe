"""One epoch as a pipeline: this module reads the ledger, hands each step typed records and
records what the step returns. Epoch 0 evaluates the seed and freezes synthesized tests; every
later epoch proposes candidates (the strategy), evaluates them on the coreset (screening,
racing), scores their rollouts, records the plans' effects and composes; then it closes:
select (`SelectionInput` -> `Selection`), validate the picks, intervals, and the reports
(`EpochData`)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from harnesspro.core.metrics import scored, search_rollouts
from harnesspro.core.money import dollars, share
from harnesspro.core.records import Candidate, Score
from harnesspro.core.uncertainty import Uncertainty, bootstrap
from harnesspro.evaluation.engine import Evaluated, Split
from harnesspro.evaluation.racing import race_first, race_rest
from harnesspro.evaluation.rollouts import evaluate
from harnesspro.evaluation.scoring import freeze_tests
from harnesspro.evaluation.selection.select import Selected
from harnesspro.evaluation.validation import seeded_tasks, validate
from harnesspro.evolution.compose import compose, next_parents
from harnesspro.evolution.finish import run_reports
from harnesspro.evolution.improve import record_effects
from harnesspro.evolution.score_step import score_pending
from harnesspro.evolution.select_step import select_epoch
from harnesspro.evolution.strategies import make_strategy
from harnesspro.evolution.surface import empty_epoch_reason
from harnesspro.evolution.unproven import screen_unproven
from harnesspro.reports.dashboard import write_dashboard
from harnesspro.reports.epoch import EpochData, write_epoch_reports
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.run.lessons import file_epoch, library_path
from harnesspro.run.validation_scores import validation_scores


def rollout_cap(ctx: RunContext, reserved: bool = True) -> int | None:
    """Search rollouts that `evaluation.max_rollouts` still allows (None = uncapped), bar
    those kept for the confirmation (`evolution.confirm_attempts`) unless `reserved` is
    False."""
    cap = ctx.config.evaluation.max_rollouts
    if cap is None:
        return None
    kept = ctx.config.evolution.confirm_reserve(len(ctx.splits.coreset)) if reserved else 0
    return max(0, cap - kept - len(search_rollouts(ctx.ledger.rollout_rows())))


def say(ctx: RunContext, lines: Iterable[str]) -> None:
    """The steps' lines for the console, indented under the epoch's heading."""
    for line in lines:
        ctx.console.print(f"  {line}", markup=False)


def note_stop(ctx: RunContext, epoch: int, done: Evaluated, split: Split) -> None:
    """Print what the evaluation said; record, once, that the cap left candidates out: no
    later epoch will start."""
    say(ctx, done.notes)
    if done.skipped and not ctx.ledger.meta("stopped"):
        reason = (
            f"evaluation.max_rollouts ({ctx.config.evaluation.max_rollouts}) reached in epoch "
            f"{epoch}: {', '.join(done.skipped)} not evaluated on the {split} split"
        )
        ctx.ledger.set_meta("stopped", reason)
        ctx.console.print(f"  {reason}", markup=False)


def stopped(ctx: RunContext, epoch: int) -> bool:
    """Whether the search must not start `epoch` because the rollout cap was hit or spent."""
    if not ctx.ledger.meta("stopped") and rollout_cap(ctx) == 0:
        cap = ctx.config.evaluation.max_rollouts
        kept = ctx.config.evolution.confirm_reserve(len(ctx.splits.coreset))
        but = f" (bar {kept} kept to confirm the operating points)" if kept else ""
        ctx.ledger.set_meta(
            "stopped", f"evaluation.max_rollouts ({cap}) spent before epoch {epoch}{but}"
        )
    return ctx.ledger.meta("stopped") is not None


def intervals(ctx: RunContext) -> dict[str, Uncertainty]:
    """Bootstrap intervals and P(non-dominated) of every candidate's coreset scores."""
    ev = ctx.config.evaluation
    frame = scored(ctx.scoring_rollouts(), ctx.splits.coreset)
    return bootstrap(frame, "pass", ev.bootstrap_resamples, ev.confidence, ctx.config.seed)


def shortfall_lines(ctx: RunContext) -> list[str]:
    """The candidates left out as incomplete, and what the seed misses, with the counts."""
    short = ctx.shortfalls()
    lines = []
    left_out = [short[cid].describe() for cid in ctx.incomplete()]
    if left_out:
        lines.append(
            "  incomplete (missing coreset task x attempts: a budget cap cut them short or "
            f"infrastructure errors took them; not compared): {', '.join(left_out)}"
        )
    if SEED_ID in short:
        lines.append(
            f"  the seed misses coreset rollouts: {short[SEED_ID].describe()}; it stays the "
            "reference, scored on the rest"
        )
    return lines


def close_epoch(ctx: RunContext, epoch: int) -> Selected:
    """Select, validate the picks, record, report and print the epoch's operating points."""
    for line in shortfall_lines(ctx):
        ctx.console.print(line, markup=False)
    ctx.run.mark_phase("selection")
    selected = select_epoch(ctx, epoch)
    ctx.run.mark_phase("rollouts")
    note_stop(ctx, epoch, validation_step(ctx, selected.parents, epoch), "validation")
    ctx.run.mark_phase("selection")
    if ctx.config.selection.validated:
        selected = settle(ctx, epoch)
    spread = intervals(ctx)
    ctx.ledger.record_intervals(
        epoch,
        [(u.candidate_id, *u.pass_rate_ci, *u.cost_ci, u.p_nondominated) for u in spread.values()],
    )
    held = validation_scores(ctx)
    ctx.run.mark_phase("reports")
    write_epoch_reports(epoch_data(ctx, selected, spread, held))
    run_reports(ctx)
    ctx.ledger.finish_epoch(epoch, selected.hypervolume)
    if ctx.config.reports.dashboard == "every_epoch":
        write_dashboard(ctx.run.root)  # RUN/dashboard.html, rebuilt at the end of every epoch
    scores = ctx.scores()
    for mode, cid in selected.picks.items():
        s, u, v = scores[cid], spread[cid], held.get(cid)
        valid = f"; validation {v.pass_rate:.1%} {dollars(v.cost_per_task)}/task" if v else ""
        ctx.console.print(
            f"  epoch {epoch} {mode:>6}: {cid} pass {s.pass_rate:.1%} "
            f"[{u.pass_rate_ci[0]:.0%}, {u.pass_rate_ci[1]:.0%}] {dollars(s.cost_per_task)}/task, "
            f"P(non-dominated) {share(u.p_nondominated)}{valid}"
        )
    return selected


def epoch_data(
    ctx: RunContext, selected: Selected, spread: dict[str, Uncertainty], held: dict[str, Score]
) -> EpochData:
    """What the epoch's reports read, gathered once from the ledger."""
    return EpochData(
        epoch=selected.epoch,
        folder=ctx.run.reports(selected.epoch),
        seed_id=SEED_ID,
        picks=selected.picks,
        scores=ctx.scores(),
        candidates=ctx.candidates(),
        rollouts=ctx.ledger.rollouts(),
        plans=ctx.ledger.plans(),
        confidence=ctx.config.evaluation.confidence,
        intervals=spread,
        validation=held,
    )


def settle(ctx: RunContext, epoch: int) -> Selected:
    """`selection.validated`: choose again on the pooled scores; while a pick has no
    validation score, validate it and choose again (each round validates a new candidate,
    so this ends), until the picks are all validated or the rollout cap stops it."""
    while True:
        selected = select_epoch(ctx, epoch)
        held = validation_scores(ctx)
        fresh = [cid for cid in selected.parents if cid not in held]
        if not fresh:
            return selected
        ctx.run.mark_phase("rollouts")
        done = validation_step(ctx, fresh, epoch)
        note_stop(ctx, epoch, done, "validation")
        ctx.run.mark_phase("selection")
        if done.ran == 0:  # the cap left nothing to validate them with
            return selected


def validation_step(ctx: RunContext, parents: list[str], epoch: int) -> Evaluated:
    """Validation rollouts of `parents` within the cap, then the validation tests frozen
    from the seed's rollouts, then every pending rollout scored."""
    done = validate(ctx, parents, epoch, rollout_cap(ctx))
    done += Evaluated(0, (), tuple(freeze_tests(ctx, seeded_tasks(ctx))))
    score_pending(ctx)
    return done


def epoch_zero(ctx: RunContext) -> Selected:
    """Evaluate the seed, then freeze one synthesized test per coreset task from its rollouts."""
    ctx.console.rule("epoch 0 (seed)")
    coreset = ", ".join(ctx.splits.coreset)
    ctx.console.print(f"coreset ({len(ctx.splits.coreset)} tasks, DPP): {coreset}")
    ctx.run.mark_phase("rollouts")
    say(ctx, evaluate(ctx, [ctx.seed()], 0).notes)
    say(ctx, freeze_tests(ctx, ctx.splits.coreset))
    score_pending(ctx)
    return close_epoch(ctx, 0)


def epoch_candidates(ctx: RunContext, epoch: int, previous: Selected) -> list[Candidate]:
    """The epoch's candidates: those journaled when a crashed run made them, else improve's
    (journaled now), so a resumed epoch is never re-planned."""
    journaled = ctx.ledger.journaled(epoch, "candidates")
    if journaled is not None:
        known = ctx.candidates()
        ctx.console.print(f"  resuming epoch {epoch}: its plans and candidates are reused")
        return [known[cid] for cid in json.loads(journaled)]
    ctx.run.mark_phase("improve")
    parents = next_parents(ctx, epoch - 1, previous.parents)
    children = make_strategy(ctx.config.evolution.strategy).propose(ctx, epoch, parents)
    ctx.ledger.journal(epoch, "candidates", json.dumps([c.id for c in children]))
    return children


def stop_if_empty(ctx: RunContext, epoch: int, children: list[Candidate]) -> None:
    """An epoch that made no new candidate stops the search, with the reason recorded and
    printed (its plans' notes say what became of each)."""
    if children or ctx.ledger.meta("stopped"):
        return
    plans = ctx.ledger.plans()
    notes = [str(n or "") for e, n in zip(plans["epoch"], plans["note"], strict=True) if e == epoch]
    reason = empty_epoch_reason(epoch, notes)
    ctx.ledger.set_meta("stopped", reason)
    ctx.console.print(f"  {reason}", markup=False)


def run_epoch(ctx: RunContext, epoch: int, previous: Selected) -> Selected:
    ctx.console.rule(f"epoch {epoch}")
    children = epoch_candidates(ctx, epoch, previous)
    stop_if_empty(ctx, epoch, children)
    ctx.run.mark_phase("rollouts")
    children, screened = screen_unproven(ctx, epoch, children, rollout_cap(ctx))
    note_stop(ctx, epoch, screened, "coreset")
    cap = rollout_cap(ctx)
    first = race_first(ctx, children, epoch, cap)
    score_pending(ctx)  # racing decides on attempt 0's scores
    rest = race_rest(ctx, children, epoch, None if cap is None else cap - first.ran)
    note_stop(ctx, epoch, first + rest, "coreset")
    if rest.ran:  # attempt 0 (or every attempt, without racing) is scored already
        score_pending(ctx)
    ctx.run.mark_phase("git")  # verdicts become git notes; the composer merges
    record_effects(ctx, epoch)
    merged = compose(ctx, epoch)
    if merged:
        ctx.run.mark_phase("rollouts")
        note_stop(ctx, epoch, evaluate(ctx, merged, epoch, cap=rollout_cap(ctx)), "coreset")
        score_pending(ctx)
        ctx.run.mark_phase("git")
        record_effects(ctx, epoch, {c.id for c in merged})  # a merge's verdict, as any child's
    ctx.run.mark_phase("reports")
    if ctx.config.library.use:
        say(ctx, [f"library: {file_epoch(ctx, epoch)} lessons filed in {library_path(ctx)}"])
    return close_epoch(ctx, epoch)
