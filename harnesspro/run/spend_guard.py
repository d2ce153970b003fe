"""The spend estimate against the run's caps, said before epoch 0: the console lines, a start
past a cap refused, and a run on a paid upstream refused without its caps (unless `--yes`)."""

from __future__ import annotations

from harnesspro.core.config import RunConfig
from harnesspro.core.money import dollars
from harnesspro.run.estimate import Estimate


def _about(value: float | None, most: float | None) -> str:
    if value is None:
        return "unknown (the model has no price)"
    return f"~{dollars(value, 2)} (up to {dollars(most, 2)})"


def describe(est: Estimate, config: RunConfig) -> list[str]:
    """The estimate as console lines, with each account's cap."""
    budget = config.budget
    target_cap = _cap(budget.max_target_dollars)
    search_cap = _cap(budget.max_improver_dollars)
    search = (
        f"~{est.improver_calls} improver and synthesizer calls, "
        f"{_about(est.improver_dollars, est.improver_dollars_max)}"
        if est.improver_calls
        else "no model calls (the improver and the synthesizer run offline)"
    )
    return [
        f"estimated spend for the whole run (model: {config.model.name}; improver: "
        f"{config.evolution.improver_model.name}):",
        f"  target: {est.search_rollouts} search rollouts, "
        f"{_about(est.target_dollars, est.target_dollars_max)}; cap {target_cap}",
        f"  held-out: {est.heldout_rollouts} rollouts, "
        f"{_about(est.heldout_dollars, est.heldout_dollars_max)}; "
        f"cap {_cap(budget.max_heldout_dollars)}",
        f"  search: {search}; cap {search_cap}",
    ]


def _cap(value: float | None) -> str:
    return dollars(value, 2) if value else "none"


def paid_models(config: RunConfig) -> list[str]:
    """The budget keys a run on a paid upstream must set: the target's, and the improver's
    when an llm role calls it (a local server the run starts itself costs nothing)."""
    evo, keys = config.evolution, []
    if config.model.upstream == "openai":
        keys.append("budget.max_target_dollars")
    llm = "llm" in (evo.improver, evo.synthesizer)
    if llm and evo.improver_model.upstream == "openai":
        keys.append("budget.max_improver_dollars")
    return keys


def uncapped(est: Estimate, config: RunConfig) -> str:
    """'' when every paid account has its cap, else one sentence naming the estimate and the
    keys to set."""
    budget = config.budget
    caps = {
        "budget.max_target_dollars": budget.max_target_dollars,
        "budget.max_improver_dollars": budget.max_improver_dollars,
    }
    missing = [key for key in paid_models(config) if caps[key] is None]
    if not missing:
        return ""
    spend = (
        f"target ~{_money(est.target_dollars)} (held-out ~{_money(est.heldout_dollars)}), "
        f"improver ~{_money(est.improver_dollars)}"
    )
    return (
        f"this run calls a paid model with no spend cap (estimated {spend}); set "
        f"{' and '.join(missing)}, or pass --yes to start uncapped."
    )


def _money(value: float | None) -> str:
    return "unknown" if value is None else dollars(value, 2)


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
    held = budget.max_heldout_dollars
    if held is not None and (est.heldout_dollars or 0) > held:
        over.append(
            f"held-out ~{dollars(est.heldout_dollars, 2)} > budget.max_heldout_dollars "
            f"{dollars(held, 2)}"
        )
    if not over:
        return ""
    return (
        f"the run's estimated spend is past its cap ({'; '.join(over)}), so it would stop "
        "early; lower the sizes, raise the cap, or pass --yes to start anyway."
    )
