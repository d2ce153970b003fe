"""Component removal: what each part of an operating point is worth. For each catalog
mechanism a point's lineage carries, the point rebuilt from the seed without it, and the
point rebuilt whole, K attempts per coreset task scored by the official tests, in
RUN/removals/ (its own ledger, so the run's candidates and figures stay as they were).

Opt-in by a rollout budget (`evaluation.removal_rollouts`): all of it runs, or none. Points
carrying a change the catalog cannot rebuild (a written change, a merge) are left out, said
why.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harnesspro.core.metrics import known_mean
from harnesspro.core.records import Candidate, RolloutRow
from harnesspro.evaluation.heldout import final_harnesses
from harnesspro.evaluation.rollouts import evaluate
from harnesspro.evaluation.transfer import open_beside
from harnesspro.harness.mechanisms.catalog import BUNDLE_SEP, CATALOG
from harnesspro.harness.mechanisms.genes import parts_in
from harnesspro.run.context import SEED_ID, RunContext

REMOVALS = "removals"


@dataclass(frozen=True)
class Variant:
    """A point rebuilt from the seed with its mechanisms but `removed` ("" = whole)."""

    point: str
    removed: str
    genes: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.point}-{'whole' if not self.removed else 'no-' + self.removed}"


def point_genes(point: str, candidates: Mapping[str, Candidate]) -> tuple[str, ...] | None:
    """The catalog mechanisms along a point's lineage, oldest first; None when a step is not
    made of catalog mechanisms."""
    names: list[str] = []
    current: str | None = point
    while current is not None and current != SEED_ID:
        c = candidates[current]
        parts = str(c.mechanism or "").split(BUNDLE_SEP)
        if not all(p in CATALOG for p in parts):
            return None
        names = [*parts, *names]
        current = c.parent
    return tuple(dict.fromkeys(names))


def variants(point: str, genes: tuple[str, ...]) -> list[Variant]:
    """The whole point, then one variant per mechanism removed."""
    whole = Variant(point, "", genes)
    return [whole, *(Variant(point, g, tuple(x for x in genes if x != g)) for g in genes)]


def build(ctx: RunContext, other: RunContext, variant: Variant, seed: Candidate) -> Candidate:
    """The variant committed to the run's harness repository (once: reused on resume)."""
    known = {c.id: c for c in other.ledger.candidates()}
    if variant.id in known:
        return known[variant.id]
    tree = ctx.repo.start_candidate(variant.id, seed.commit)
    for name in variant.genes:
        for gene in parts_in(name, tree):
            gene.apply(tree)
    commit, digest = ctx.repo.commit_candidate(
        variant.id, f"{variant.point} without {variant.removed or 'nothing'}"
    )
    made = Candidate(variant.id, commit, digest, SEED_ID, "removal", variant.removed or None, 0)
    other.ledger.add_candidate(made)
    return made


def plan(ctx: RunContext) -> tuple[list[tuple[str, Variant]], list[str]]:
    """(modes, variant) for each distinct operating point (modes joined by '/': one point
    may serve several), and a line per point left out."""
    _, harnesses = final_harnesses(ctx)
    candidates = ctx.candidates()
    modes: dict[str, list[str]] = {}
    for mode, c in harnesses[1:]:
        if c.id != SEED_ID:
            modes.setdefault(c.id, []).append(mode)
    out, skipped = [], []
    for cid, named in modes.items():
        label, genes = "/".join(named), point_genes(cid, candidates)
        if not genes:
            skipped.append(
                f"component removal: {label} {cid} carries a change the catalog cannot "
                "rebuild; left out"
            )
            continue
        out += [(label, v) for v in variants(cid, genes)]
    return out, skipped


@dataclass(frozen=True)
class Removal:
    """One variant's coreset figures on the official tests, and the change from its whole
    point (NaN: unknown, e.g. an unpriced model or no scored rollout)."""

    mode: str
    point: str
    removed: str
    candidate: str
    rollouts: int
    pass_rate: float
    cost_per_task: float
    pass_change: float
    cost_change: float


def removals(rollouts: Iterable[RolloutRow], planned: list[tuple[str, Variant]]) -> list[Removal]:
    """Per variant: scored rollouts, official pass rate and cost per task, and the change
    from the whole point (pass-rate difference, relative cost)."""
    judged = [r for r in rollouts if r.status != "infra_error" and r.official_pass is not None]
    figures = {}
    for _, v in planned:
        mine = [r for r in judged if r.candidate_id == v.id]
        rate = sum(bool(r.official_pass) for r in mine) / len(mine) if mine else math.nan
        figures[v.id] = (len(mine), rate, known_mean([r.cost for r in mine]))
    out = []
    for mode, v in planned:
        n, rate, cost = figures[v.id]
        _, base_rate, base_cost = figures.get(f"{v.point}-whole", (0, math.nan, math.nan))
        removed = v.removed or "(nothing: the whole point)"
        change = cost / base_cost - 1 if base_cost else math.nan
        out.append(Removal(mode, v.point, removed, v.id, n, rate, cost, rate - base_rate, change))
    return out


def run_removals(ctx: RunContext, attempts: int) -> tuple[list[Removal] | None, list[str]]:
    """Build and roll out every variant when all of it fits `evaluation.removal_rollouts`;
    (the variants' figures, lines to print), or (None, why not)."""
    planned, lines = plan(ctx)
    need = len(planned) * len(ctx.splits.coreset) * attempts
    budget = ctx.config.evaluation.removal_rollouts
    if not planned:
        return None, lines
    if need > budget:
        return None, [
            *lines,
            f"component removal: needs {need} rollouts, more than "
            f"evaluation.removal_rollouts = {budget}; skipped",
        ]
    config = ctx.config.model_copy(
        update={"evaluation": ctx.config.evaluation.model_copy(update={"official_on_search": True})}
    )
    other = open_beside(ctx, config, ctx.run.root / REMOVALS)
    seed = ctx.candidates()[SEED_ID]
    built = {v.id: build(ctx, other, v, seed) for _, v in planned}
    epoch, _ = final_harnesses(ctx)
    evaluate(other, list(built.values()), epoch, "coreset", attempts=range(attempts))
    return removals(other.ledger.rollout_rows(), planned), lines
