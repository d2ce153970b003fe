"""`nsga2`: pymoo's NSGA-II over the catalog, one bit per mechanism (a genome per candidate).

Ask/tell, rebuilt from the ledger each epoch so a resumed run continues: every candidate this
search has scored is told to the algorithm with F = (-pass rate, cost per task) on the
coreset, NSGA-II's rank-and-crowding survival keeps a population of them (`POP_SIZE`
uncapped; under `evaluation.max_rollouts` sized so the cap pays for three generations), and
its tournament selection, two-point crossover and bit-flip mutation ask for the next
offspring; evaluation is the epoch loop's rollouts. The first generation is the seed plus
random genomes, as NSGA-II starts. A genome becomes a candidate by applying its mechanisms to
the seed in catalog order through editor/apply.py:apply_plan (so equal trees are
deduplicated).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.core.evaluator import Evaluator
from pymoo.core.problem import Problem
from pymoo.operators.crossover.pntx import TwoPointCrossover
from pymoo.operators.mutation.bitflip import BitflipMutation
from pymoo.operators.sampling.rnd import BinaryRandomSampling
from pymoo.operators.survival.rank_and_crowding import RankAndCrowding
from pymoo.problems.static import StaticProblem

from harnesspro.core import journal
from harnesspro.core.records import Candidate, Plan
from harnesspro.evolution.strategies import Plain
from harnesspro.evolution.strategies.generations import generation_size
from harnesspro.evolution.strategies.state import SearchState, search_state
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.harness.mechanisms.genes import parts_in
from harnesspro.improvers.editor.apply import apply_plan
from harnesspro.improvers.planner.catalog import lineage
from harnesspro.run.context import SEED_ID, RunContext

POP_SIZE = 9  # uncapped: as many new candidates per epoch as 3 directives x 3 parents
GENES = tuple(CATALOG)


def genome(candidate_id: str, candidates: dict[str, Candidate]) -> np.ndarray:
    """Bits of the mechanisms applied along a candidate's lineage."""
    names = {
        part
        for c in lineage(candidate_id, candidates)
        for part in (candidates[c].mechanism or "").split("+")
    }
    return np.array([g in names for g in GENES], dtype=bool)


def offspring(state: SearchState) -> np.ndarray:
    """The next generation's genomes (rows), from NSGA-II over everything scored so far; the
    population follows the rollout cap (strategies/generations.py)."""
    size = generation_size(POP_SIZE, state.paid)
    problem = Problem(n_var=len(GENES), n_obj=2, xl=0, xu=1, vtype=bool)
    seed = state.run_seed * 1000 + state.epoch
    candidates, scores = dict(state.candidates), state.scores
    known = [c for c in sorted(scores) if c in candidates]
    if known == [SEED_ID]:
        rng = np.random.default_rng(seed)
        first = BinaryRandomSampling().do(problem, size - 1, random_state=rng)
        return np.asarray(first.get("X"), dtype=bool)
    f_of = {
        genome(c, candidates).tobytes(): (-scores[c].pass_rate, scores[c].cost_per_task)
        for c in known
    }
    x_known = np.array([np.frombuffer(b, dtype=bool) for b in f_of])
    algorithm = NSGA2(
        pop_size=size,
        sampling=x_known,
        crossover=TwoPointCrossover(),
        mutation=BitflipMutation(),
        eliminate_duplicates=True,
    )
    algorithm.setup(problem, seed=seed)
    told = algorithm.ask()
    f_told = np.array([f_of[np.asarray(x, dtype=bool).tobytes()] for x in told.get("X")])
    Evaluator().eval(StaticProblem(problem, F=f_told), told)
    algorithm.tell(infills=told)
    algorithm.pop = RankAndCrowding().do(problem, algorithm.pop, n_survive=size)
    return np.asarray(algorithm.ask().get("X"), dtype=bool)


def apply_genome(worktree: Path, plan: Plan, feedback: str) -> str:
    """Apply each gene of the plan's genome (a catalog recipe or a declared knob value)
    through the knobs the harness declares."""
    genes = parts_in(plan.mechanism, worktree)
    if not genes:
        raise ValueError(
            f"{plan.mechanism} needs knobs this harness does not declare (harness.toml [[knob]])"
        )
    for gene in genes:
        gene.apply(worktree)
    return f"catalog mechanisms {plan.mechanism}"


class NSGA2Search(Plain):
    """Journaled like the method's improve step (harnesspro/core/journal.py): the epoch's offspring
    once drawn, then each edit with its candidate and plan row, so a resumed epoch redraws
    nothing and redoes only an edit a crash interrupted."""

    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        return journaled_children(ctx, epoch, offspring_plans)


def journaled_children(
    ctx: RunContext, epoch: int, draw: Callable[[RunContext, int], list[Plan]]
) -> list[Candidate]:
    """The epoch's plans (journaled once drawn, so a resumed epoch redraws nothing), each
    edited from the seed; the new, unscored candidates they make."""
    plans = journal.journaled_plans(ctx.ledger, epoch)
    if plans is None:
        plans = draw(ctx, epoch)
        ctx.ledger.journal(epoch, journal.PLANS, journal.plans_text(plans))
    children: dict[str, Candidate] = {}
    for index, plan in enumerate(plans):
        child = edit_genome(ctx, epoch, index, plan)
        if child and child.id not in ctx.scores():
            children[child.id] = child
    return list(children.values())


def offspring_plans(ctx: RunContext, epoch: int) -> list[Plan]:
    """One plan per non-empty offspring genome: its mechanisms joined by '+'."""
    names = ("+".join(g for g, on in zip(GENES, bits, strict=True) if on)
             for bits in offspring(search_state(ctx, epoch)))  # fmt: skip
    return [Plan(SEED_ID, "balanced", n, "NSGA-II offspring", 0.0, 0.0) for n in names if n]


def edit_genome(ctx: RunContext, epoch: int, index: int, plan: Plan) -> Candidate | None:
    """The genome's candidate: journaled by a crashed run, else made now and recorded
    (candidate, plan row and journal in one transaction)."""
    done = journal.journaled_edit(ctx.ledger, epoch, index)
    if done is not None:
        return ctx.candidates()[done.child] if done.child else None
    existing = list(ctx.candidates().values())
    new_id, backend = f"c{len(existing):03d}", ctx.config.sandbox.backend
    edit = apply_plan(plan, ctx.seed(), ctx.repo, existing, new_id, epoch, apply_genome, backend)
    made = edit.candidate if edit.new else None
    child = edit.candidate.id if edit.candidate else None
    ctx.ledger.record_edit(epoch, journal.edit_step(index), plan, made, child, edit.note)
    return edit.candidate
