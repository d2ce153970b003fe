"""What a whole run will spend, estimated before epoch 0 from the config's sizes and the price
table: the target account (the search's rollouts), the held-out evaluation's rollouts and the
search account (improver and synthesizer calls), each against its cap
(`budget.max_target_dollars`, `budget.max_heldout_dollars`, `budget.max_improver_dollars`).
A run on a paid upstream refuses to start without the target and improver caps (`uncapped`).

Rollouts are counted from the sizes, as the loop schedules them and as the configured
strategy proposes candidates (an upper bound: epoch 1 improves the seed, every later epoch
`max_survivors` parents; see `children`). Tokens are a documented model, not a
measurement: a rollout's call i (from 0) sends `PROMPT_TOKENS + i * TURN_TOKENS` input tokens
and gets `OUTPUT_TOKENS` back, all input billed uncached; it makes `TYPICAL_CALLS` calls
(expected) and at most its call cap (`gateway.rollout_budget.max_calls`, else the seed's
`MAX_STEPS`), its token and dollar caps bounding both. Each improver role's call has the
token sizes of `ROLE_CALLS`; the expected count is one call per step, the bound its retries.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harnesspro.core.config import RunConfig
from harnesspro.core.knobs import KnobError
from harnesspro.core.model_config import Price
from harnesspro.core.search_config import ANALYZED_EVERY_EPOCH, PROPOSAL_COUNTS
from harnesspro.improvers.account import improver_price
from harnesspro.improvers.planner.space import space_of
from harnesspro.run.context import TaskChoice, choose_tasks, model_price

PROMPT_TOKENS = 1_500
"""System prompt, tool schema and task instruction of a rollout's first call."""
TURN_TOKENS = 400
"""What each earlier step (reply, command, tool result) adds to a later call's input."""
OUTPUT_TOKENS = 300
"""Output tokens per target call, reasoning included."""
TYPICAL_CALLS = 12
"""Calls of a typical rollout (the scripted seed averages about 7 on the built-in tasks; real
models read more and retry more)."""
MAX_STEPS = 50
"""The bundled seed's `max_steps`: its calls when no call cap is set."""
DIRECTIVES = 3
"""Plans per parent per epoch: cost-first, balanced, performance-first."""
EDIT_ATTEMPTS = 2
"""Editing attempts per plan: the first and one retry with the validator's message."""
TYPICAL_EDIT_STEPS = 6
"""Model calls of a typical editing attempt (the bound is `max_edit_steps`)."""
ROLE_CALLS = {
    "analyzer": (12_000, 1_500),
    "planner": (16_000, 2_500),
    "editor": (6_000, 800),
    "synthesizer": (10_000, 1_000),
}
"""(input, output) tokens of one call per improver role."""


@dataclass(frozen=True)
class SplitSizes:
    """Tasks per split, as the run will use them."""

    coreset: int
    validation: int
    test: int


@dataclass(frozen=True)
class Estimate:
    """A run's estimated spend; dollars are None where the model has no known price."""

    search_rollouts: int
    heldout_rollouts: int
    target_dollars: float | None
    """The search's rollouts (`budget.max_target_dollars`)."""
    target_dollars_max: float | None
    improver_calls: int
    improver_dollars: float | None
    improver_dollars_max: float | None
    heldout_dollars: float | None = None
    """The held-out evaluation's rollouts (`budget.max_heldout_dollars`)."""
    heldout_dollars_max: float | None = None


def _call_cost(price: Price, tokens_in: int, tokens_out: int) -> float:
    return (tokens_in * price.input + tokens_out * price.output) / 1_000_000


def rollout_dollars(config: RunConfig, price: Price, calls: int) -> float:
    """Dollars of one rollout of `calls` calls under the token model, within its caps."""
    cap = config.gateway.rollout_budget
    calls = min(calls, cap.max_calls or calls)
    tokens_in = sum(PROMPT_TOKENS + i * TURN_TOKENS for i in range(calls))
    tokens_out = calls * OUTPUT_TOKENS
    if cap.max_tokens is not None and tokens_in + tokens_out > cap.max_tokens:
        scale = cap.max_tokens / (tokens_in + tokens_out)
        tokens_in, tokens_out = int(tokens_in * scale), int(tokens_out * scale)
    spent = _call_cost(price, tokens_in, tokens_out)
    return min(spent, cap.max_dollars) if cap.max_dollars is not None else spent


def parent_steps(config: RunConfig) -> int:
    """Parents improved over the run: the seed in epoch 1, then up to `max_survivors` per
    epoch."""
    evo = config.evolution
    return 0 if evo.epochs == 0 else 1 + (evo.epochs - 1) * evo.max_survivors


def children(config: RunConfig, epoch: int) -> int:
    """Candidates the configured strategy proposes in `epoch` at most (the composer's merge
    of each parent aside), by its `PROPOSAL_COUNTS` rule: a gain-chosen strategy screens
    `size` rows first, then edits `size` picks (uncapped) or DIRECTIVES an epoch; a
    population starts with `size - 1` random genomes beside the seed, then breeds `size`;
    the others make `size` plans a parent."""
    evo = config.evolution
    count = PROPOSAL_COUNTS[evo.strategy]
    parents = 1 if epoch == 1 else evo.max_survivors
    capped = config.evaluation.max_rollouts is not None
    if count.rule == "gain":
        if epoch == 1 and screens(config):
            return count.size
        picks = DIRECTIVES if capped else count.size
        planned_only = evo.improver == "llm" and evo.strategy not in ANALYZED_EVERY_EPOCH
        return min(parents * DIRECTIVES, picks) if planned_only else picks
    if count.rule == "population":
        return count.size - 1 if epoch == 1 else count.size
    return parents * count.size


def screens(config: RunConfig) -> bool:
    """The default strategy screens in epoch 1 on a seed with something to screen: the
    bundled seed, or a harness whose declared knobs give genes."""
    seed = config.harness.seed
    return seed is None or declares_genes(seed)


def search_rollouts(config: RunConfig, sizes: SplitSizes) -> int:
    """Coreset and validation rollouts of the whole search, within `evaluation.max_rollouts`."""
    evo, ev = config.evolution, config.evaluation
    g = evo.rollouts_per_task
    made = sum(children(config, epoch) for epoch in range(1, evo.epochs + 1))
    merges = parent_steps(config) if evo.composer else 0  # a merge per parent
    coreset = sizes.coreset * g * (1 + made + merges)
    tasks = min(ev.validation_tasks or sizes.validation, sizes.validation)
    each = g if ev.validation_rollouts is None else ev.validation_rollouts
    # the seed gets at least G a task (its rollouts write the frozen validation tests), a new
    # pick `each` once (evaluation/validation.py)
    seed = tasks * (max(each, g) if each > 0 else 0)
    validation = seed + tasks * each * evo.epochs * evo.max_survivors
    confirmation = evo.confirm_reserve(sizes.coreset)
    total = coreset + validation + confirmation
    return total if ev.max_rollouts is None else min(total, ev.max_rollouts)


def heldout_rollouts(config: RunConfig, sizes: SplitSizes) -> int:
    """The final evaluation: seed 2K attempts, lite/medium/heavy K each, per test task."""
    if not config.evaluation.final:
        return 0
    return sizes.test * config.evaluation.attempts * (2 + 3)


def improver_calls(config: RunConfig, sizes: SplitSizes, typical: bool) -> dict[str, int]:
    """Calls per improver role over the run (one per step when `typical`, else the bound)."""
    evo = config.evolution
    tries = 1 if typical else 2  # the roles ask again once after an invalid reply
    calls = dict.fromkeys(ROLE_CALLS, 0)
    if evo.improver == "llm":
        parents, edits = llm_steps(config)
        steps = TYPICAL_EDIT_STEPS if typical else evo.improver_model.max_edit_steps
        steps = min(steps, evo.improver_model.max_edit_steps)
        calls["analyzer"] = calls["planner"] = parents * tries
        if evo.strategy in ANALYZED_EVERY_EPOCH:  # its screening epoch diagnoses the seed too
            calls["analyzer"] = parent_steps(config) * tries
        calls["editor"] = edits * steps * (1 if typical else EDIT_ATTEMPTS)
    if evo.synthesizer == "llm":
        tasks = min(config.evaluation.validation_tasks or sizes.validation, sizes.validation)
        calls["synthesizer"] = (sizes.coreset + tasks) * tries
    return calls


def llm_steps(config: RunConfig) -> tuple[int, int]:
    """With improver 'llm': the parents the planner plans for and the plans edited at most.
    The default strategy screens in epoch 1 without the planner (on a seed that declares
    knobs), then edits only the plans the surrogate chooses: 3 an epoch under a rollout
    cap, else 9 (strategies/llm_gain.py)."""
    parents, evo = parent_steps(config), config.evolution
    count = PROPOSAL_COUNTS[evo.strategy]
    if count.rule != "gain":
        return parents, parents * DIRECTIVES
    screened = 1 if evo.epochs and screens(config) else 0
    picks = count.size if config.evaluation.max_rollouts is None else DIRECTIVES
    planning = parents - screened  # epoch 1 improves the seed alone
    return planning, min(planning * DIRECTIVES, (evo.epochs - screened) * picks)


def declares_genes(seed: Path) -> bool:
    """Whether the harness at `seed` has anything to screen (a manifest that cannot be read
    has nothing: the run itself refuses it with the reason)."""
    try:
        return len(space_of(seed.resolve())) > 0
    except KnobError:
        return False


def improver_dollars(calls: dict[str, int], price: Price | None) -> float | None:
    if price is None:
        return None if any(calls.values()) else 0.0
    return sum(n * _call_cost(price, *ROLE_CALLS[role]) for role, n in calls.items())


def estimate(
    config: RunConfig, sizes: SplitSizes, target: Price | None, improver: Price | None
) -> Estimate:
    """The whole run's estimated spend in both accounts."""
    searched, held = search_rollouts(config, sizes), heldout_rollouts(config, sizes)
    cap = config.gateway.rollout_budget.max_calls or MAX_STEPS
    each = None if target is None else rollout_dollars(config, target, TYPICAL_CALLS)
    most = None if target is None else rollout_dollars(config, target, cap)
    typical, bound = improver_calls(config, sizes, True), improver_calls(config, sizes, False)
    return Estimate(
        searched,
        held,
        None if each is None else each * searched,
        None if most is None else most * searched,
        sum(typical.values()),
        improver_dollars(typical, improver),
        improver_dollars(bound, improver),
        None if each is None else each * held,
        None if most is None else most * held,
    )


def estimate_run(config: RunConfig, chosen: TaskChoice | None = None) -> Estimate:
    """The estimate for a config: its splits as the run will draw them (`chosen`, when drawn
    already), its prices (an unpriced model the config does not allow is refused here, as the
    run would)."""
    splits = (chosen or choose_tasks(config)).splits
    sizes = SplitSizes(len(splits.coreset), len(splits.validation), len(splits.test))
    llm = "llm" in (config.evolution.improver, config.evolution.synthesizer)
    return estimate(config, sizes, model_price(config), improver_price(config) if llm else None)
