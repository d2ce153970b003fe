"""Confirmation (`evolution.confirm_attempts`): once the search ends, the seed and the last
selection's operating points get that many more attempts on every coreset task (attempts G,
G+1, ...) and the last epoch's selection is made again on all of them.

The scripted world and a sampling seed per attempt give every candidate the same random draws
on a task and attempt, so a search that compares many candidates on G draws partly chooses
what was lucky on those draws; new attempts are new draws, shared by the seed and the points
it is compared with. The rollouts come from a reserve the rollout cap kept back from the
search (`EvolutionConfig.confirm_reserve`). The epoch's own report folder keeps the choice
made before the confirmation; the ledger, the held-out evaluation and the final reports use
the new one. Resumable: the confirmed candidates are journaled before their rollouts, so a
resumed run confirms the same ones (finished rollouts skipped) and makes the choice again.
Under `selection.validated` the choice is settled as every epoch's is; a new pick is
validated only if the cap, bar the reserve, still has rollouts for it.
"""

from __future__ import annotations

import json

from harnesspro.evaluation.rollouts import evaluate
from harnesspro.evaluation.selection.select import Selected
from harnesspro.evolution.epoch import note_stop, rollout_cap, settle
from harnesspro.evolution.score_step import score_pending
from harnesspro.evolution.select_step import select_epoch
from harnesspro.run.context import SEED_ID, RunContext


def confirm(ctx: RunContext, selected: Selected) -> Selected:
    """The last selection made again after `confirm_attempts` more coreset attempts of the
    seed and of its picks (within the rollout cap, the seed first); unchanged when 0."""
    extra = ctx.config.evolution.confirm_attempts
    if extra == 0:
        return selected
    g = ctx.config.evolution.rollouts_per_task
    candidates = ctx.candidates()
    ids = confirmed_ids(ctx, selected)
    ctx.console.rule(f"confirmation ({extra} more attempts per coreset task)")
    ctx.run.mark_phase("rollouts")
    done = evaluate(
        ctx, [candidates[c] for c in ids], selected.epoch, "coreset",
        attempts=range(g, g + extra), cap=rollout_cap(ctx, reserved=False),
    )  # fmt: skip
    note_stop(ctx, selected.epoch, done, "coreset")
    score_pending(ctx)
    ctx.run.mark_phase("selection")
    epoch = selected.epoch
    again = settle(ctx, epoch) if ctx.config.selection.validated else select_epoch(ctx, epoch)
    for mode, cid in again.picks.items():
        was = selected.picks.get(mode)
        change = "kept" if was == cid else f"was {was}"
        ctx.console.print(f"  confirmed {mode:>6}: {cid} ({change})", markup=False)
    return again


STEP = "confirmation"


def confirmed_ids(ctx: RunContext, selected: Selected) -> list[str]:
    """The seed and the search's picks, journaled once: a resumed run reads them back (its
    recorded selection may already be the confirmed one)."""
    journaled = ctx.ledger.journaled(selected.epoch, STEP)
    if journaled is not None:
        return list(json.loads(journaled))
    ids = [SEED_ID, *(cid for cid in selected.parents if cid != SEED_ID)]
    ctx.ledger.journal(selected.epoch, STEP, json.dumps(ids))
    return ids
