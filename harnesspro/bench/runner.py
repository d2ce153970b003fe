"""Running the benchmark's variants: one run folder per (variant, profile), all sharing one
rollout cache, so the seed's rollouts, candidates two strategies both reach and common final
operating points run once. Re-running the same command resumes every run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console

from harnesspro.bench import greedy
from harnesspro.core.config import RunConfig, apply_override
from harnesspro.core.config_base import ConfigError
from harnesspro.core.metrics import search_rollouts
from harnesspro.core.records import Plan
from harnesspro.evaluation.heldout import held_out, of, summarise
from harnesspro.evaluation.rollouts import evaluate
from harnesspro.evolution.loop import run_evolution
from harnesspro.evolution.strategies import STRATEGIES
from harnesspro.evolution.strategies.nsga2 import apply_genome
from harnesspro.execution.fakes.sampling import sample_profile
from harnesspro.harness.mechanisms.catalog import BUNDLE_SEP, CATALOG
from harnesspro.improvers.editor.apply import apply_plan
from harnesspro.improvers.planner.space import EXCLUSIVE
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.run.folder import RunFolder

MODES = ("seed", "lite", "medium", "heavy")


@dataclass(frozen=True)
class Variant:
    """A strategy with its switches, under the label the report uses."""

    label: str
    strategy: str
    racing: bool = False
    composer: bool = False


@dataclass(frozen=True)
class Outcome:
    """One variant on one profile, on the test split with the official tests."""

    variant: str
    profile: int
    misleading: bool
    points: dict[str, tuple[float, float]]  # seed/lite/medium/heavy -> (pass rate, cost)
    rollouts: int
    run_dir: str
    run_seed: int | None = None  # `--run-seeds`: the run's `seed` (None: the config's)
    test_tasks: int = 0  # the size of the test split the points were measured on


def variants(strategies: Sequence[str], racing: bool, composer: bool = False) -> list[Variant]:
    """The strategies asked for, plus `harnesspro+racing` when racing is compared and
    `harnesspro+composer` when the composer is."""
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise ConfigError(
            f"--strategies: unknown {', '.join(unknown)}; choose from {', '.join(STRATEGIES)}."
        )
    out = [Variant(s, s) for s in strategies]
    out += [Variant("harnesspro+racing", "harnesspro", True)] if racing else []
    return out + ([Variant("harnesspro+composer", "harnesspro", composer=True)] if composer else [])


def variant_config(
    base: RunConfig, variant: Variant, profile: int, cache: Path, run_seed: int | None = None
) -> RunConfig:
    """The base config with the variant's strategy and switches, the profile, the shared
    cache and (`--run-seeds`) the run seed, which leaves the splits alone (`tasks.split_seed`
    fixes them) and changes the search's and the policy's draws."""
    # only what the config set: a default it never set stays unset (a split manifest refuses
    # an explicitly set tasks.test_fraction)
    data: dict[str, Any] = base.model_dump(mode="json", exclude_unset=True)
    if run_seed is not None:
        apply_override(data, f"seed={run_seed}")
    for assignment in (
        f"name=bench-{variant.label}-p{profile}",
        f"evolution.strategy={variant.strategy}",
        f"evolution.racing={str(variant.racing).lower()}",
        f"model.behaviour.seed={profile}",
        f"evaluation.rollout_cache={cache}",
    ):
        apply_override(data, assignment)
    if variant.composer:  # only then: configs of runs made before this switch stay equal
        apply_override(data, "evolution.composer=true")
    return RunConfig.model_validate(data)


def final_points(ctx: RunContext) -> dict[str, tuple[float, float]]:
    """Seed and operating points on the test split, from the run's final report."""
    table = pd.read_csv(ctx.run.reports() / "final.csv")
    rows = {
        str(h): (float(p), float(c))
        for h, p, c in zip(
            table["harness"], table["pass_rate"], table["cost_per_task"], strict=True
        )
    }
    return {m: rows[m] for m in MODES if m in rows}


def run_name(variant: Variant, profile: int, run_seed: int | None = None) -> str:
    """`runs/<variant>-p<profile>`, with `-s<seed>` under `--run-seeds`."""
    return f"{variant.label}-p{profile}" + ("" if run_seed is None else f"-s{run_seed}")


def run_variant(
    base: RunConfig,
    variant: Variant,
    profile: int,
    out: Path,
    console: Console,
    run_seed: int | None = None,
) -> Outcome:
    """Run (or resume) one variant on one profile (with `run_seed`); its log goes to the run
    folder."""
    config = variant_config(base, variant, profile, out / "rollout-cache.sqlite", run_seed)
    run = RunFolder((out / "runs" / run_name(variant, profile, run_seed)).resolve())
    run.root.mkdir(parents=True, exist_ok=True)
    with (run.root / "log.txt").open("a") as log:
        ctx = RunContext.open(config, run, Console(file=log, width=120))
        # A run is marked complete after its held-out evaluation; a folder written before that
        # order (complete, no final.csv) is resumed too: its finished search does no new rollouts.
        done = ctx.ledger.meta("status") == "complete"
        if not done or not (run.reports() / "final.csv").exists():
            run_evolution(ctx)
    outcome = Outcome(
        variant.label,
        profile,
        sample_profile(profile).misleading,
        final_points(ctx),
        len(search_rollouts(ctx.ledger.rollout_rows())),
        str(run.root),
        run_seed,
        len(ctx.splits.test),
    )
    ctx.ledger.close()
    seed = "" if run_seed is None else f", run seed {run_seed}"
    console.print(
        f"  {variant.label} on profile {profile}{seed}: {outcome.rollouts} search rollouts"
    )
    return outcome


def _add(ctx: RunContext, names: Sequence[str], why: str) -> None:
    """The seed with the catalog mechanisms `names` applied as a genome is (any two on one
    lever too), recorded as a candidate (an equal tree is not made twice)."""
    order = list(CATALOG)
    name = BUNDLE_SEP.join(sorted(names, key=order.index))
    plan = Plan(SEED_ID, "balanced", name, why, 0.0, 0.0)
    seed = ctx.seed()  # committed and recorded first: the new ids count it
    existing = list(ctx.candidates().values())
    new_id, backend = f"c{len(existing):03d}", ctx.config.sandbox.backend
    edit = apply_plan(plan, seed, ctx.repo, existing, new_id, 0, apply_genome, backend)
    if edit.new and edit.candidate:
        ctx.ledger.add_candidate(edit.candidate)


def _test_points(ctx: RunContext, k: int) -> dict[str, tuple[float, float]]:
    """Every candidate of the run on the test split (K attempts, official tests), by
    harness: "seed" or its mechanisms' name."""
    evaluate(ctx, list(ctx.candidates().values()), 0, "test", attempts=range(k))
    rows = [r for r in held_out(ctx.ledger.rollout_rows(), ctx.splits.test) if r.attempt < k]
    names = {c.id: c.mechanism or "seed" for c in ctx.candidates().values()}
    points = {}
    for candidate_id in sorted({r.candidate_id for r in rows}):
        s = summarise(of(rows, candidate_id), k)
        points[names[candidate_id]] = (float(s["pass_rate"]), float(s["cost_per_task"]))
    return points


def exhaustive_points(
    base: RunConfig, profile: int, out: Path, console: Console
) -> dict[str, tuple[float, float]]:
    """Extra points for the reference front, evaluated on the test split (K attempts,
    official tests): the seed, each catalog mechanism alone, then the greedy stacks of those
    singles' measured effects (`greedy.py`), by harness ("seed" or the mechanisms' name)."""
    config = variant_config(
        base, Variant("exhaustive", "harnesspro"), profile, out / "rollout-cache.sqlite"
    )
    run = RunFolder((out / "runs" / f"exhaustive-p{profile}").resolve())
    run.root.mkdir(parents=True, exist_ok=True)
    k = config.evaluation.attempts
    with (run.root / "log.txt").open("a") as log:
        ctx = RunContext.open(config, run, Console(file=log, width=120))
        for name in CATALOG:
            _add(ctx, [name], "exhaustive single")
        singles = _test_points(ctx, k)
        step = 1 / (len(ctx.splits.test) * k)
        for order in greedy.orders(
            {n: p for n, p in singles.items() if n in CATALOG}, singles["seed"], step
        ).values():
            for stack in greedy.stacks(order, EXCLUSIVE):
                _add(ctx, stack, "greedy stack")
        points = _test_points(ctx, k)
        ctx.ledger.close()
    stacked = len(points) - len(singles)
    console.print(
        f"  exhaustive singles and greedy stacks on profile {profile}: {len(singles)} + "
        f"{stacked} harnesses"
    )
    return points
