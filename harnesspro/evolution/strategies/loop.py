"""`harnesspro` (the default): the improvement loop, analyse -> plan under three directives ->
decide -> edit, on the selected parents.

Each epoch (evolution/improve.py:run_roles runs the roles and records what they return):
1. analyze: the analyzer reads each parent's G rollouts per task together (rule-based, or the
   llm's) and its diagnoses are recorded; they are gathered into findings per parent
   (improvers/analyzer/findings.py);
2. plan: per parent and directive, the changes aimed at the findings and at the directive's
   region (improvers/roles/directed.py: catalog mechanisms that apply and the rule-based
   improver's written changes; with improver 'llm' the model's plans beside the catalog's,
   and the written changes for a parent the model gave no usable plan);
3. decide: the surrogate, its priors from the findings, chooses by expected hypervolume gain
   per region which proposals are edited (strategies/loop_choice.py); when none clears the
   front's noise the run stops here and says what it saved;
4. edit: each chosen change applied to its parent in its own worktree and committed.
The first epoch screens the levers the seed's findings point to (strategies/loop_screen.py).
The ablations withhold the findings from the planner and the priors (`NoAnalyzer`) or centre
the priors on no effect (`FlatPrior`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from harnesspro.core.records import DIRECTIVES, Candidate, Diagnosis, Plan
from harnesspro.evolution.improve import improve
from harnesspro.evolution.strategies import Plain
from harnesspro.evolution.strategies.llm_gain import catalog_applies
from harnesspro.evolution.strategies.loop_choice import Decision, decide
from harnesspro.evolution.strategies.loop_screen import PriorMode, prior_of, screening_plans
from harnesspro.evolution.strategies.loop_stacks import all_stacks
from harnesspro.evolution.strategies.nsga2 import apply_genome
from harnesspro.evolution.strategies.state import SearchState, search_state
from harnesspro.harness.repo import HarnessRepo
from harnesspro.improvers.analyzer import Fallbacks
from harnesspro.improvers.analyzer.findings import Finding, answered, findings_of
from harnesspro.improvers.editor.apply import Edit, apply_plan
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.improvers.library import harmful
from harnesspro.improvers.planner.evidence import beliefs_from
from harnesspro.improvers.planner.features import Features, measured_changes
from harnesspro.improvers.planner.measured import measured_genomes
from harnesspro.improvers.roles.directed import (
    Context,
    directed_plans,
    write_change,
    written_proposals,
)
from harnesspro.improvers.roles.dispatch import CatalogImprover, Improver
from harnesspro.run.context import SEED_ID, RunContext


@dataclass(frozen=True)
class Variant:
    """What the analyzer's findings reach (the planner, the surrogate's priors), and whether
    the first epoch screens."""

    planner_findings: bool = True
    prior: PriorMode = "findings"
    screen: bool = True


class Loop(Plain):
    """The default: the loop above, operating points chosen on the surrogate's means."""

    shrunk = True
    writes_changes = True
    variant = Variant()

    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        return improve(
            ctx, epoch, parents, wrap=lambda inner: LoopRoles(inner, ctx, epoch, self.variant)
        )


class NoAnalyzer(Loop):
    """Ablation: the findings withheld from the planner and the surrogate's priors."""

    variant = Variant(planner_findings=False, prior="catalog")


class FlatPrior(Loop):
    """Ablation: the surrogate's prior means at no effect."""

    variant = Variant(prior="flat")


class NoScreen(Loop):
    """Ablation: no screening epoch; the surrogate picks on its priors from epoch 1."""

    variant = Variant(screen=False)


class RawSelection(Loop):
    """Ablation: operating points chosen on the raw coreset estimates, as the baselines
    choose, not on the surrogate's posterior means."""

    shrunk = False


def screens(ctx: RunContext, state: SearchState) -> bool:
    """Whether this epoch screens: no catalog candidate measured yet, and the catalog's edits
    apply to the seed."""
    measured = measured_genomes(state.candidates, sorted(state.scores), Features(space=state.space))
    return set(measured) <= {SEED_ID} and catalog_applies(ctx)


def aimed(plan: Plan, findings: list[Finding]) -> Plan:
    """An llm plan with the finding its rationale names (the most widespread one)."""
    if plan.finding:
        return plan
    found = answered([f.kind for f in findings if f.kind in plan.rationale], findings)
    return plan if found is None else replace(plan, finding=found.describe())


@dataclass
class LoopRoles:
    """The analyzer and editor of `inner` (catalog or llm), the loop's planner and decision."""

    inner: Improver
    ctx: RunContext
    epoch: int
    variant: Variant

    @property
    def offline(self) -> bool:
        return isinstance(self.inner, CatalogImprover)

    def diagnose(self, inputs: ImproverInputs) -> tuple[list[Diagnosis], Fallbacks]:
        return self.inner.diagnose(inputs)

    def plan(
        self,
        inputs: ImproverInputs,
        diagnoses: list[Diagnosis],
        prevalences: Mapping[str, Mapping[str, float]],
    ) -> tuple[list[Plan], Fallbacks]:
        found = {p: findings_of(diagnoses, p, inputs.scores[p].n_rollouts) for p in inputs.parents}
        told = found if self.variant.planner_findings else {p: [] for p in inputs.parents}
        state = search_state(self.ctx, self.epoch)
        if self.variant.screen and screens(self.ctx, state):
            return screening_plans(state, told.get(SEED_ID, [])), {}
        views = self.views(inputs, told, frozenset(state.space.names))
        proposals, fell_back = self.proposals(inputs, diagnoses, prevalences, told, views)
        evidence = found if self.variant.prior == "findings" else {}
        decision = decide(
            state, proposals, measured_changes(self.ctx.ledger.plan_rows(), state.candidates),
            prior_of(self.variant.prior, evidence), 3 if state.affordable is None else 1,
            lambda features: all_stacks(views, features, told), told,
        )  # fmt: skip
        self.report(decision, state, proposals)
        return decision.plans, fell_back

    def proposals(
        self,
        inputs: ImproverInputs,
        diagnoses: list[Diagnosis],
        prevalences: Mapping[str, Mapping[str, float]],
        told: Mapping[str, list[Finding]],
        views: Mapping[str, Context],
    ) -> tuple[list[Plan], Fallbacks]:
        """The planner's proposals for every parent: the rule-based planner's, and with
        improver 'llm' the model's beside the catalog's (the stacks are added in `decide`)."""
        plans: list[Plan] = []
        for view in views.values():
            plans += directed_plans(view, written=self.offline)
        if self.offline:
            return plans, {}
        withheld = not self.variant.planner_findings
        llm, fell_back = self.inner.plan(
            inputs,
            [] if withheld else diagnoses,
            {p: {} for p in prevalences} if withheld else prevalences,
        )
        plans += [aimed(p, told[p.parent_id]) for p in llm]
        return [*plans, *written_fallback(fell_back, views)], fell_back

    def views(
        self, inputs: ImproverInputs, told: Mapping[str, list[Finding]], genes: frozenset[str]
    ) -> dict[str, Context]:
        """What the planner reads for each parent (`genes`: the harness's space)."""
        beliefs, avoid = beliefs_from(inputs.memory), harmful(inputs.library)
        return {
            p: Context(inputs.candidates[p], inputs.candidates, told[p], beliefs, avoid, genes)
            for p in inputs.parents
        }

    def report(self, decision: Decision, state: SearchState, planned: list[Plan]) -> None:
        """Print the decision; when it is to stop, record why and what that saved."""
        console = self.ctx.console
        line = (
            f"decide: {len(decision.plans)} of {decision.proposals} proposals chosen "
            f"({counts(planned)}; {decision.proposals - len(planned)} stacks); best expected "
            f"hypervolume gain {decision.best_gain:.3g}, "
            f"noise {decision.noise:.3g}"
        )
        console.print(f"  {line}", markup=False)
        if decision.stops:
            reason = stop_reason(self.ctx, self.epoch, state, decision)
            self.ctx.ledger.set_meta("stopped", reason)
            console.print(f"  {reason}", markup=False)

    def edit(
        self,
        plan: Plan,
        parent: Candidate,
        repo: HarnessRepo,
        existing: list[Candidate],
        new_id: str,
        epoch: int,
    ) -> Edit:
        backend = self.ctx.config.sandbox.backend
        if plan.kind == "catalog":
            return apply_plan(plan, parent, repo, existing, new_id, epoch, apply_genome, backend)
        if self.offline:
            return apply_plan(plan, parent, repo, existing, new_id, epoch, write_change, backend)
        return self.inner.edit(plan, parent, repo, existing, new_id, epoch)


def written_fallback(fell_back: Fallbacks, views: Mapping[str, Context]) -> list[Plan]:
    """For each parent the model gave no usable plan, the rule-based planner's written
    changes, which the model's editor then implements: on a harness no catalog mechanism
    applies to, the catalog fallback alone would leave the loop nothing to edit."""
    return [p for parent in fell_back if parent in views for p in written_proposals(views[parent])]


def counts(plans: list[Plan]) -> str:
    """How many proposals each directive had."""
    return ", ".join(f"{d} {sum(p.directive == d for p in plans)}" for d in DIRECTIVES)


def stop_reason(ctx: RunContext, epoch: int, state: SearchState, decision: Decision) -> str:
    """Why the run ends at `epoch`, and the rollouts that saves: the epochs left, each up to
    three picks per region (one under a rollout cap) on every coreset task G times, within
    what the cap has left."""
    evo = ctx.config.evolution
    picks = 3 if state.affordable is None else 1
    per = len(state.coreset) * evo.rollouts_per_task
    saved = (evo.epochs - epoch + 1) * 3 * picks * per
    if state.affordable is not None:
        saved = min(saved, state.affordable * per)
    return (
        f"the run ends early at epoch {epoch}: no proposal's expected hypervolume gain "
        f"({decision.best_gain:.3g} at best, of {decision.proposals} proposals) clears the "
        f"front's noise ({decision.noise:.3g}); about {saved} search rollouts saved"
    )
