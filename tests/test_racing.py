"""Racing end to end: a real `evolve` with `evolution.racing: true` stops spending on a new
candidate that a fully evaluated one dominates with high probability after attempt 0, and
gives the full G to one it does not. The bound is recomputed here from the ledger with the
binomial form of the Beta quantile (bisection), not with the implementation's scipy call."""

from __future__ import annotations

import math
import sqlite3
import statistics
from pathlib import Path

import pytest
import yaml

from harnesspro.cli import main
from harnesspro.core import journal
from harnesspro.core.records import Candidate, Plan
from harnesspro.evolution.strategies import STRATEGIES, Plain
from harnesspro.improvers.editor.apply import apply_plan, catalog_edit
from harnesspro.run.context import RunContext
from tests.conftest import tiny_config

pytestmark = pytest.mark.slow
G = 2
FILLER = "This line is here to make every request long.\n" * 1500  # ~70 KB, ~17k tokens


def padded(worktree: Path, plan: Plan, feedback: str) -> str:
    """Every request carries the filler and the loop stops after two model calls: dearer
    than the seed per call, and too short to finish a task."""
    (worktree / "prompts" / "filler.md").write_text(FILLER)
    settings = worktree / "harness.yaml"
    config = yaml.safe_load(settings.read_text())
    config["prompts"]["system_extra"].append("prompts/filler.md")
    config["max_steps"] = 2
    settings.write_text(yaml.safe_dump(config, sort_keys=False))
    return "filler prompt and a two-call cap"


class PaddedAndCompressed(Plain):
    """Proposes, from the seed, the padded harness and the catalog's compress_output."""

    def propose(self, ctx: RunContext, epoch: int, parents: list[str]) -> list[Candidate]:
        seed = ctx.seed()
        plans = [
            (Plan(seed.id, "performance-first", "padded", "test", 0.0, 1.0, "free", change="pad"),
             padded),
            (Plan(seed.id, "cost-first", "compress_output", "test", 0.0, -0.2), catalog_edit),
        ]  # fmt: skip
        children = []
        for index, (plan, edit_fn) in enumerate(plans):
            existing = list(ctx.candidates().values())
            new_id = f"c{len(existing):03d}"
            edit = apply_plan(plan, seed, ctx.repo, existing, new_id, epoch, edit_fn)
            assert edit.candidate is not None, edit.note
            ctx.ledger.record_edit(
                epoch, journal.edit_step(index), plan, edit.candidate, new_id, edit.note
            )
            children.append(edit.candidate)
        return children


def beta_upper(passes: int, n: int, level: float = 0.9) -> float:
    """The `level` quantile of Beta(1 + passes, 1 + n - passes), whose CDF at x is
    P(Binomial(n + 1, x) >= passes + 1), by bisection."""

    def cdf(x: float) -> float:
        return sum(
            math.comb(n + 1, k) * x**k * (1 - x) ** (n + 1 - k) for k in range(passes + 1, n + 2)
        )

    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < level else (lo, mid)
    return lo


def test_racing_stops_a_dominated_candidate_after_attempt_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    ray_session: None,
) -> None:  # fmt: skip
    monkeypatch.setitem(STRATEGIES, "random", f"{__name__}:PaddedAndCompressed")
    evaluation = {"final": False, "validation_rollouts": 0, "official_on_search": False}
    config = tiny_config(
        tmp_path,
        evaluation=evaluation,
        evolution={"epochs": 1, "rollouts_per_task": G, "strategy": "random", "racing": True},
    )
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 0
    out = capsys.readouterr().out
    db = sqlite3.connect(run_dir / "ledger.sqlite")
    rows = db.execute(
        "SELECT candidate_id, attempt, pass, cost FROM rollouts "
        "WHERE split = 'coreset' AND pass IS NOT NULL ORDER BY candidate_id, task_id, attempt"
    ).fetchall()
    coreset = {r[0] for r in db.execute("SELECT DISTINCT task_id FROM rollouts")}
    assert len(coreset) == 3
    per = {cid: [r for r in rows if r[0] == cid] for cid in ("c000", "c001", "c002")}
    assert "racing: c001 dominated after attempt 0; stopped" in out
    assert {r[1] for r in per["c001"]} == {0} and len(per["c001"]) == len(coreset)
    assert len(per["c002"]) == len(per["c000"]) == len(coreset) * G  # the full G
    # The stop is right by the definition, recomputed: the seed's pass rate is at least the
    # padded harness's 90% upper bound and its cost at most the padded one's 90% lower bound.
    passes, costs = [r[2] for r in per["c001"]], [r[3] for r in per["c001"]]
    upper = beta_upper(int(sum(passes)), len(passes))
    lower = statistics.mean(costs) - 1.2816 * statistics.stdev(costs) / math.sqrt(len(costs))
    seed_pass = statistics.mean(r[2] for r in per["c000"])
    seed_cost = statistics.mean(r[3] for r in per["c000"])
    assert seed_pass >= upper and seed_cost <= lower, (seed_pass, upper, seed_cost, lower)
