"""The run: epoch 0, then each epoch (`epoch.py`) within the run's rollout cap, refreshing the
coreset between them; then the confirmation of the operating points (`confirm.py`, when
configured); at the end, the held-out test evaluation and the reports (`finish.py`).
`python -m harnesspro.evolve --config FILE`."""

from __future__ import annotations

from harnesspro.core.config_base import ConfigError
from harnesspro.evaluation.selection.select import Selected
from harnesspro.evolution.confirm import confirm
from harnesspro.evolution.epoch import epoch_zero, rollout_cap, run_epoch, stopped
from harnesspro.evolution.finish import finish_run
from harnesspro.evolution.refresh import refresh_coreset
from harnesspro.evolution.select_step import recorded
from harnesspro.evolution.strategies import make_strategy
from harnesspro.evolution.strategies.state import seed_space
from harnesspro.evolution.surface import surface_line
from harnesspro.run.context import RunContext


def check_start(ctx: RunContext) -> None:
    """The rollout cap must at least cover the seed's coreset evaluation; a validated
    selection needs validation tasks."""
    cap = ctx.config.evaluation.max_rollouts
    need = len(ctx.splits.coreset) * ctx.config.evolution.rollouts_per_task
    kept = ctx.config.evolution.confirm_reserve(len(ctx.splits.coreset))
    if cap is not None and cap < need + kept:
        reserve = f" and the {kept} evolution.confirm_attempts keeps in reserve" if kept else ""
        raise ConfigError(
            f"evaluation.max_rollouts ({cap}) is below the seed's coreset evaluation "
            f"({need} rollouts){reserve}; raise it."
        )
    if ctx.config.selection.validated and not ctx.splits.validation:
        raise ConfigError(
            "selection.validated chooses on validation scores but the validation split is "
            "empty; remove it or give the split validation tasks."
        )


def announce_surface(ctx: RunContext) -> None:
    """One line at the start when the seed declares no knobs: only written changes apply."""
    name = ctx.config.harness.seed.name if ctx.config.harness.seed else "seed"
    evo = ctx.config.evolution
    writes = make_strategy(evo.strategy).writes_changes
    line = surface_line(name, len(seed_space(ctx)), evo.improver, writes)
    if line:
        ctx.console.print(line, markup=False)


def run_evolution(ctx: RunContext) -> Selected:
    """Run every epoch not finished yet, then the held-out evaluation and the reports; the run
    is marked complete after them. A finished search does no new search rollouts."""
    check_start(ctx)
    announce_surface(ctx)
    finished = set(ctx.ledger.finished_epochs()["epoch"])
    if 0 in finished:
        selected = recorded(ctx, 0)
    else:
        selected = epoch_zero(ctx)
        ctx = refresh_coreset(ctx, 0, selected.parents, rollout_cap(ctx))
    for epoch in range(1, ctx.config.evolution.epochs + 1):
        if epoch in finished:
            selected = recorded(ctx, epoch)
        elif stopped(ctx, epoch):
            break
        else:
            selected = run_epoch(ctx, epoch, selected)
            ctx = refresh_coreset(ctx, epoch, selected.parents, rollout_cap(ctx))
    selected = confirm(ctx, selected)
    finish_run(ctx, search_done=True)
    return selected
