"""Transfer: the held-out evaluation of a finished run's seed and lite/medium/heavy re-run on
another model, in its own folder beside the run's reports (RUN/transfers/NAME/), never in the
run's ledger, so the run's own figures stay what they were.

The transfer config is the run's, with only the model (and price table) replaced: tasks,
splits, K and the harnesses stay the run's. The transfer folder is a run folder of its own
(config.yaml, ledger.sqlite, rollouts/, reports/) whose harnesses are read from the run's
harness repository; re-running the same command resumes it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path

from harnesspro.core.config import RunConfig
from harnesspro.core.config_base import ConfigError
from harnesspro.core.ledger import Ledger
from harnesspro.evaluation.heldout import FinalReport, evaluate_points, final_harnesses
from harnesspro.execution.fakes.behaviour import ProfileError
from harnesspro.execution.worlds import resolve_world
from harnesspro.run.context import RunContext, model_price
from harnesspro.run.folder import RunFolder
from harnesspro.tasks.keys import keyed_hashes

TRANSFERS = "transfers"


def transfer_config(run: RunConfig, other: RunConfig) -> RunConfig:
    """The run's config with `other`'s model and price table."""
    return run.model_copy(update={"model": other.model, "prices": other.prices})


def transfer_name(config: RunConfig) -> str:
    """A folder name for the model: its name and a short hash of its settings."""
    digest = hashlib.sha256(config.model.model_dump_json().encode()).hexdigest()[:8]
    return f"{re.sub(r'[^A-Za-z0-9._-]+', '-', config.model.name)}-{digest}"


def open_transfer(ctx: RunContext, config: RunConfig, folder: Path) -> RunContext:
    """The run's context pointed at the transfer folder, its own ledger and `config`'s model
    (the run's harness repository, tasks and splits kept)."""
    if config.model == ctx.config.model and config.prices == ctx.config.prices:
        raise ConfigError(
            "the transfer config's model and prices are the run's own; pass a config (or "
            "--model / --set model.KEY=VALUE) naming another model or behaviour profile."
        )
    return open_beside(ctx, config, folder)


def open_beside(ctx: RunContext, config: RunConfig, folder: Path) -> RunContext:
    """A run folder of its own at `folder` (own ledger, rollouts and reports) that reads the
    run's harness repository, tasks and splits, under `config`."""
    try:
        behaviour = resolve_world(config.model.behaviour)
    except ProfileError as exc:
        raise ConfigError(str(exc)) from None
    price = model_price(config)
    run = RunFolder(folder.resolve())
    run.open(config)
    run.write_splits(ctx.splits)
    ledger = Ledger(run.ledger)
    return replace(
        ctx, config=config, run=run, ledger=ledger, price=price, behaviour=behaviour,
        task_hashes=keyed_hashes(ledger, ctx.tasks), model_url=None,
    )  # fmt: skip


def run_transfer(ctx: RunContext, other: RunContext, attempts: int) -> FinalReport:
    """Roll out the run's seed (2K attempts: the band) and final operating points (K) on the
    test split under `other`'s model; the report from `other`'s ledger only."""
    epoch, harnesses = final_harnesses(ctx)
    known = {c.id for c in other.ledger.candidates()}
    for _, c in harnesses:
        if c.id not in known:
            other.ledger.add_candidate(c)
            known.add(c.id)
    return evaluate_points(other, epoch, harnesses, attempts)
