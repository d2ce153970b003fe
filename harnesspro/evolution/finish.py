"""The end of a run: the held-out evaluation on the test split with the official tests, the run's
reports (agreement, budget, costs, compositions, lever coverage and effects, the decision
report), the complete mark and the dashboard."""

from __future__ import annotations

from harnesspro.evaluation.heldout import failed_verdicts, run_final
from harnesspro.evaluation.removal import run_removals
from harnesspro.evolution.compose import write_compositions
from harnesspro.reports import agreement, budget, frames, levers
from harnesspro.reports.check_kinds import check_kinds, kinds_body
from harnesspro.reports.costs import write_run_costs
from harnesspro.reports.dashboard import write_dashboard
from harnesspro.reports.decision import decision_report, write_decision
from harnesspro.reports.decision_view import decision_lines
from harnesspro.reports.final import band_line, final_table, incomplete_line, write_final
from harnesspro.reports.lever_effects import effect_lines, write_lever_effects
from harnesspro.reports.removal import removal_lines, removal_table, write_removal
from harnesspro.reports.rundata import load_run
from harnesspro.reports.search_costs import describe_search_costs, write_search_costs
from harnesspro.run.context import RunContext


def run_reports(ctx: RunContext) -> list[str]:
    """Write reports/agreement.json and reports/budget.json; return them as printable lines."""
    rollouts = ctx.ledger.rollouts()
    by_split = agreement.agreement_by_split(rollouts)
    kinds, quiet = check_kinds(ctx)
    agreement.write_agreement(ctx.run.reports(), by_split, kinds_body(kinds, quiet))
    spend = budget.budget_report(
        rollouts,
        ctx.config.evaluation.max_rollouts,
        ctx.ledger.meta("stopped"),
        ctx.config.budget.max_target_dollars,
        ctx.ledger.search_calls(),
        ctx.config.budget.max_improver_dollars,
        ctx.ledger.discarded(),
        ctx.config.budget.max_heldout_dollars,
    )
    budget.write_budget(spend, ctx.run.reports())
    write_search_costs(ctx.ledger, ctx.run.reports())
    write_run_costs(rollouts, ctx.ledger.search_calls(), ctx.run.reports())
    if ctx.config.evolution.composer:
        write_compositions(ctx)
    coverage = levers.write_lever_reports(
        rollouts, ctx.ledger.plans(), ctx.splits.coreset, ctx.run.reports()
    )
    lines = agreement.load_lines(ctx.run.root)
    data = load_run(ctx.run.root)
    effects = frames.lever_effect_table(data)
    write_lever_effects(effects, ctx.run.reports())
    decision = decision_report(data)
    if decision is not None:
        write_decision(decision, ctx.run.reports())
    return [
        *lines, *budget.describe(spend), describe_search_costs(ctx.ledger),
        levers.describe(coverage), *effect_lines(effects, data.confidence),
        *(decision_lines(decision) if decision else []),
    ]  # fmt: skip


def finish_run(ctx: RunContext, attempts: int | None = None, search_done: bool = False) -> None:
    """The held-out evaluation (K = `attempts`, else the config's; skipped when the config
    says `evaluation.final: false` and no K is given), then the run's reports, printed. After
    a finished search (`search_done`) the run is marked complete only then, before its
    dashboard is written: a run killed before is resumed, and never shown complete early."""
    ev = ctx.config.evaluation
    if attempts is not None or ev.final:
        if ctx.splits.test:
            ctx.console.rule("held-out evaluation (test split, official tests)")
            ctx.run.mark_phase("held-out")
            report = run_final(ctx, attempts or ev.attempts)
            write_final(report, ctx.run.reports())
            ctx.console.print(final_table(report))
            ctx.console.print(band_line(report))
            if report.incomplete:
                ctx.console.print(incomplete_line(report), markup=False)
            labels = [(h.harness, h.candidate_id) for h in report.harnesses]
            failures = failed_verdicts(ctx.ledger.rollout_rows(), labels, ctx.splits.test)
            if failures:
                ctx.console.print("failed official verdicts (the verifier's reason):")
            for line in failures:
                ctx.console.print(line, markup=False)
        else:
            ctx.console.print("no test split (tasks.test_fraction = 0): no held-out evaluation")
    if ctx.config.evaluation.removal_rollouts and ctx.splits.test:
        ctx.console.rule("component removal (coreset, official tests)")
        done, notes = run_removals(ctx, attempts or ev.attempts)
        table = removal_table(done or [])
        if done is not None:
            write_removal(table, ctx.run.reports())
        for line in [*notes, *removal_lines(table)]:
            ctx.console.print(line, markup=False)
    ctx.run.mark_phase("reports")
    for line in run_reports(ctx):
        ctx.console.print(line, markup=False)
    if search_done:
        ctx.ledger.set_meta("status", "complete")
    ctx.console.print(f"dashboard: {write_dashboard(ctx.run.root)}", markup=False)
    ctx.run.mark_phase("done")
