"""The epoch loop: evaluate the seed and freeze synthesized tests (epoch 0), then per epoch
analyse -> plan -> edit -> evaluate -> select. `python -m harnesspro.evolve --config FILE`."""

from __future__ import annotations

import sys

from harnesspro.context import RunContext
from harnesspro.engine import evaluate
from harnesspro.improve import check_predictions, improve
from harnesspro.reports.epoch import write_epoch_reports
from harnesspro.scorer import freeze_tests, score_pending
from harnesspro.selection import Selected, recorded, select


def close_epoch(ctx: RunContext, epoch: int) -> Selected:
    """Select, record, report and print the epoch's operating points."""
    selected = select(ctx, epoch)
    write_epoch_reports(ctx, selected)
    ctx.ledger.finish_epoch(epoch, selected.hypervolume)
    scores = ctx.scores()
    for mode, cid in selected.picks.items():
        s = scores[cid]
        ctx.console.print(
            f"  epoch {epoch} {mode:>6}: {cid} pass {s.pass_rate:.1%} ${s.cost_per_task:.4f}/task"
        )
    return selected


def epoch_zero(ctx: RunContext) -> Selected:
    """Evaluate the seed, then freeze one synthesized test per coreset task from its rollouts."""
    ctx.console.rule("epoch 0 (seed)")
    coreset = ", ".join(ctx.splits.coreset)
    ctx.console.print(f"coreset ({len(ctx.splits.coreset)} tasks, DPP): {coreset}")
    evaluate(ctx, [ctx.seed()], 0)
    freeze_tests(ctx)
    score_pending(ctx)
    return close_epoch(ctx, 0)


def run_epoch(ctx: RunContext, epoch: int, previous: Selected) -> Selected:
    ctx.console.rule(f"epoch {epoch}")
    children = improve(ctx, epoch, previous.parents)
    evaluate(ctx, children, epoch)
    score_pending(ctx)
    check_predictions(ctx, epoch)
    return close_epoch(ctx, epoch)


def run_evolution(ctx: RunContext) -> Selected:
    """Run every epoch not finished yet; a finished run does no new rollouts."""
    finished = set(ctx.ledger.finished_epochs()["epoch"])
    selected = recorded(ctx, 0) if 0 in finished else epoch_zero(ctx)
    for epoch in range(1, ctx.config.evolution.epochs + 1):
        selected = recorded(ctx, epoch) if epoch in finished else run_epoch(ctx, epoch, selected)
    ctx.ledger.set_meta("status", "complete")
    return selected


def main(argv: list[str] | None = None) -> int:
    """`python -m harnesspro.evolve ...` is `harnesspro evolve ...`."""
    from harnesspro.cli import main as cli_main

    return cli_main(["evolve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
