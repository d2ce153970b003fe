"""Selecting the epoch's operating points from every candidate scored so far."""

from __future__ import annotations

from dataclasses import dataclass

from harnesspro import pareto
from harnesspro.context import SEED_ID, RunContext


@dataclass(frozen=True)
class Selected:
    epoch: int
    picks: dict[str, str]  # mode -> candidate id
    survivors: set[str]
    hypervolume: float

    @property
    def parents(self) -> list[str]:
        """The distinct selected candidates: they seed the next epoch."""
        return sorted(set(self.picks.values()))


def select(ctx: RunContext, epoch: int) -> Selected:
    """Filter (below the seed's pass rate, Pareto-dominated), then minimise J_m per mode."""
    scores = ctx.scores()
    ids = sorted(scores)
    pr = [scores[i].pass_rate for i in ids]
    cost = [scores[i].cost_per_task for i in ids]
    kept = [ids[i] for i in pareto.survivors(pr, cost, scores[SEED_ID].pass_rate)]
    kept_pr = [scores[i].pass_rate for i in kept]
    kept_cost = [scores[i].cost_per_task for i in kept]
    modes = {m: (w.alpha, w.beta) for m, w in ctx.config.selection.modes.items()}
    local = pareto.select_modes(kept_pr, kept_cost, modes, ctx.config.evolution.max_survivors)
    rows = []
    for mode, index in local.items():
        j = pareto.objective_j(kept_pr, kept_cost, *modes[mode])[index]
        rows.append((mode, kept[index], kept_pr[index], kept_cost[index], float(j)))
    ctx.ledger.record_selection(epoch, rows)
    # Reference point: nothing passes, at twice the dearest cost seen.
    hv = pareto.hypervolume(pr, cost, ref_cost=2 * max(cost))
    return Selected(epoch, {mode: kept[i] for mode, i in local.items()}, set(kept), hv)


def recorded(ctx: RunContext, epoch: int) -> Selected:
    """A finished epoch's selection read back from the ledger (for resuming)."""
    sel = ctx.ledger.selections()
    rows = sel[sel["epoch"] == epoch]
    epochs = ctx.ledger.finished_epochs()
    hv = float(epochs[epochs["epoch"] == epoch]["hypervolume"].iloc[0])
    return Selected(epoch, dict(zip(rows["mode"], rows["candidate_id"], strict=True)), set(), hv)
