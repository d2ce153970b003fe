"""The spend estimate against a finished scripted run of each strategy: never below what the
run measured, and at most 10% above it, in rollouts and in improver calls.

The config keeps what only the run can know out of the count: one survivor an epoch (a
strategy that proposes per parent gets exactly one), no validation and no held-out evaluation
(whose picks and operating points may coincide). What remains is each strategy's own
candidate count: the method's screening rows and picks, NSGA-II's population, `balance`'s one
plan per parent, the others' three."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.core.config import load_config
from harnesspro.core.search_config import LOOP_FAMILY, EvolutionConfig
from harnesspro.run.estimate import estimate_run
from tests.conftest import tiny_config

STRATEGIES = EvolutionConfig.model_fields["strategy"].annotation.__args__  # type: ignore[union-attr]
LOOP = LOOP_FAMILY
"""The improvement loop picks up to its bound an epoch, often fewer (it stops what has no
expected gain): for it the estimate is only an upper bound, not yet within 10%."""


def measured(run_dir: Path) -> tuple[int, int]:
    """(search rollouts, discarded attempts included; improver calls) from the ledger."""
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        done = db.execute("SELECT count(*) FROM rollouts WHERE split != 'test'").fetchone()[0]
        again = db.execute("SELECT count(*) FROM discarded WHERE split != 'test'").fetchone()[0]
        calls = db.execute("SELECT count(*) FROM search_calls").fetchone()[0]
    return done + again, calls


@pytest.mark.slow
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_estimate_bounds_a_finished_run_within_ten_percent(
    tmp_path: Path, ray_session: None, strategy: str
) -> None:
    config = tiny_config(
        tmp_path,
        evolution={"epochs": 2, "rollouts_per_task": 1, "max_survivors": 1, "strategy": strategy},
        evaluation={"final": False, "validation_rollouts": 0},
    )
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    est = estimate_run(load_config(config))
    rollouts, calls = measured(run_dir)
    assert est.heldout_rollouts == 0
    slack = 2.0 if strategy in LOOP else 1.1
    assert rollouts <= est.search_rollouts <= slack * rollouts, (est, rollouts)
    assert calls <= est.improver_calls <= 1.1 * calls, (est, calls)  # the catalog's: none
