"""What a whole run will spend, estimated before epoch 0 from the config's sizes and the price
table: the target account (the harness's rollouts) and the search account (improver and
synthesizer calls), each against its cap (`budget.max_target_dollars`,
`budget.max_improver_dollars`).

Rollouts are counted from the sizes, as the loop schedules them (an upper bound: epoch 1
improves the seed, every later epoch `max_survivors` parents, and every parent's three plans
become candidates). Tokens are a documented model, not a
measurement: a rollout's call i (from 0) sends `PROMPT_TOKENS + i * TURN_TOKENS` input tokens
and gets `OUTPUT_TOKENS` back, all input billed uncached; it makes `TYPICAL_CALLS` calls
(expected) and at most its call cap (`gateway.rollout_budget.max_calls`, else the seed's
`MAX_STEPS`), its token and dollar caps bounding both. Each improver role's call has the
token sizes of `ROLE_CALLS`; the expected count is one call per step, the bound its retries.
"""

from __future__ import annotations

from dataclasses import dataclass

from harnesspro.core.config import RunConfig
from harnesspro.core.model_config import Price
from harnesspro.core.money import dollars
from harnesspro.core.search_config import ANALYZED_EVERY_EPOCH, GAIN_CHOSEN
from harnesspro.harness.mechanisms.edits import CONFIG_FILE
from harnesspro.improvers.account import improver_price
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
    target_dollars_max: float | None
    improver_calls: int
    improver_dollars: float | None
    improver_dollars_max: float | None


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


def search_rollouts(config: RunConfig, sizes: SplitSizes) -> int:
    """Coreset and validation rollouts of the whole search, within `evaluation.max_rollouts`."""
    evo, ev = config.evolution, config.evaluation
    g, parents = evo.rollouts_per_task, parent_steps(config)
    children = parents * (DIRECTIVES + (1 if evo.composer else 0))  # a merge per parent
    coreset = sizes.coreset * g * (1 + children)
    tasks = min(ev.validation_tasks or sizes.validation, sizes.validation)
    per_candidate = tasks * (g if ev.validation_rollouts is None else ev.validation_rollouts)
    validation = per_candidate * (1 + evo.epochs * evo.max_survivors)  # a new pick once
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
    The default strategy screens in epoch 1 without the planner (on a seed the catalog's edits
    apply to), then edits only the plans the surrogate chooses: 3 an epoch under a rollout
    cap, else 9 (strategies/llm_gain.py)."""
    parents, evo = parent_steps(config), config.evolution
    if evo.strategy not in GAIN_CHOSEN:
        return parents, parents * DIRECTIVES
    seed = config.harness.seed
    screened = 1 if evo.epochs and (seed is None or (seed / CONFIG_FILE).is_file()) else 0
    picks = 9 if config.evaluation.max_rollouts is None else 3
    planning = parents - screened  # epoch 1 improves the seed alone
    return planning, min(planning * DIRECTIVES, (evo.epochs - screened) * picks)


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
        None if each is None else each * (searched + held),
        None if most is None else most * (searched + held),
        sum(typical.values()),
        improver_dollars(typical, improver),
        improver_dollars(bound, improver),
    )


def estimate_run(config: RunConfig, chosen: TaskChoice | None = None) -> Estimate:
    """The estimate for a config: its splits as the run will draw them (`chosen`, when drawn
    already), its prices (an unpriced model the config does not allow is refused here, as the
    run would)."""
    splits = (chosen or choose_tasks(config)).splits
    sizes = SplitSizes(len(splits.coreset), len(splits.validation), len(splits.test))
    llm = "llm" in (config.evolution.improver, config.evolution.synthesizer)
    return estimate(config, sizes, model_price(config), improver_price(config) if llm else None)


def _about(value: float | None, most: float | None) -> str:
    if value is None:
        return "unknown (the model has no price)"
    return f"~{dollars(value, 2)} (up to {dollars(most, 2)})"


def describe(est: Estimate, config: RunConfig) -> list[str]:
    """The estimate as console lines, with each account's cap."""
    budget = config.budget
    target_cap = dollars(budget.max_target_dollars, 2) if budget.max_target_dollars else "none"
    search_cap = dollars(budget.max_improver_dollars, 2) if budget.max_improver_dollars else "none"
    search = (
        f"~{est.improver_calls} improver and synthesizer calls, "
        f"{_about(est.improver_dollars, est.improver_dollars_max)}"
        if est.improver_calls
        else "no model calls (the improver and the synthesizer run offline)"
    )
    return [
        f"estimated spend for the whole run (model: {config.model.name}; improver: "
        f"{config.evolution.improver_model.name}):",
        f"  target: {est.search_rollouts} search + {est.heldout_rollouts} held-out rollouts, "
        f"{_about(est.target_dollars, est.target_dollars_max)}; cap {target_cap}",
        f"  search: {search}; cap {search_cap}",
    ]


def past_cap(est: Estimate, config: RunConfig) -> str:
    """'' when the expected spend fits both caps, else one sentence saying which does not."""
    budget = config.budget
    over = []
    target = budget.max_target_dollars
    if target is not None and (est.target_dollars or 0) > target:
        over.append(
            f"target ~{dollars(est.target_dollars, 2)} > budget.max_target_dollars "
            f"{dollars(target, 2)}"
        )
    cap = budget.max_improver_dollars
    if cap is not None and (est.improver_dollars or 0) > cap:
        over.append(
            f"search ~{dollars(est.improver_dollars, 2)} > budget.max_improver_dollars "
            f"{dollars(cap, 2)}"
        )
    if not over:
        return ""
    return (
        f"the run's estimated spend is past its cap ({'; '.join(over)}), so it would stop "
        "early; lower the sizes, raise the cap, or pass --yes to start anyway."
    )
