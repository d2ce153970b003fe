"""The composer: a real three-way merge of two siblings that gained on different levers,
validated like any candidate; keep-base when no sibling gained; the decision by hand."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console

from harnesspro.composer import Sibling, compose, decide
from harnesspro.config import load_config
from harnesspro.context import RunContext
from harnesspro.improve import improve
from harnesspro.records import Candidate, RolloutResult, RolloutSpec, Score, Usage
from harnesspro.runfolder import RunFolder
from tests.conftest import COMMANDS, record, tiny_config, trajectory


def score(pass_rate: float, cost: float) -> Score:
    return Score("x", pass_rate, cost, 1000.0, 6)


def sibling(
    cid: str, pass_rate: float, cost: float, lever: str, verdict: str = "helped"
) -> Sibling:
    return Sibling(
        Candidate(cid, "", "", "c000", None, None, 1), score(pass_rate, cost), (lever,), verdict
    )


def test_decide_by_hand() -> None:
    base = score(0.5, 0.10)
    cheaper = sibling("c001", 0.5, 0.05, "prompt")  # gain 0.5
    better = sibling("c002", 0.8, 0.12, "answer extraction")  # gain 0.3 - 0.2 = 0.1
    worse = sibling("c003", 0.4, 0.08, "step cap")  # cheaper but passes less: no gain
    same_lever = sibling("c004", 0.6, 0.10, "prompt")
    assert decide("c000", base, [cheaper, better, worse]).children == ("c001", "c002")
    assert decide("c000", base, [cheaper, better, worse]).outcome == "merge"
    picked = decide("c000", base, [cheaper, same_lever, worse])
    assert (picked.outcome, picked.children) == ("pick", ("c001",))
    assert decide("c000", base, [worse]).outcome == "keep-base"
    confounded = sibling("c005", 0.9, 0.01, "tool schema", verdict="confounded")
    assert decide("c000", base, [confounded, worse]).outcome == "keep-base"


def child_rollouts(ctx: RunContext, cid: str, passes: int, cost: float) -> None:
    """G = 2 scored coreset rollouts per task; the first `passes` (task, attempt) pairs pass."""
    n = 0
    for task_id in ctx.splits.coreset:
        for attempt in (0, 1):
            key = f"{cid}-{task_id}-{attempt}"
            result = RolloutResult(key, "ok", Usage(900, 100, 0, 50), cost, 1.0, 5, None,
                                   trajectory(COMMANDS), "", {})  # fmt: skip
            spec = RolloutSpec(key, cid, task_id, attempt, 1)
            ctx.ledger.record_rollout(spec, result, ctx.run.save_rollout(result), "coreset")
            ctx.ledger.set_passes({key: n < passes})
            n += 1


def epoch_one(folder: Path) -> tuple[RunContext, list[Candidate]]:
    """A composer run: seed rollouts by hand (3 of 6 pass at $0.01), catalog children."""
    evolution = {"epochs": 1, "rollouts_per_task": 2, "composer": True}
    config = load_config(tiny_config(folder, evolution=evolution))
    ctx = RunContext.open(config, RunFolder(folder / "run"), Console(record=True, width=300))
    ctx.seed()
    for n, task_id in enumerate(ctx.splits.coreset):
        for attempt in (0, 1):
            record(
                ctx,
                f"k{n}{attempt}",
                task_id,
                "coreset",
                trajectory(COMMANDS),
                attempt == 0,
                attempt,
            )
    return ctx, improve(ctx, 1, ["c000"])


def levers_of(ctx: RunContext) -> dict[str, tuple[str, ...]]:
    from harnesspro.reports.levers import plan_levers

    return {
        str(r["child_id"]): tuple(plan_levers(r)) for r in ctx.ledger.plans().to_dict("records")
    }


@pytest.mark.slow
def test_merge_of_two_gaining_siblings(tmp_path: Path) -> None:
    ctx, children = epoch_one(tmp_path)
    levers = levers_of(ctx)
    a, b = next(
        (x, y) for x in children for y in children
        if x.id < y.id and not set(levers[x.id]) & set(levers[y.id])
    )  # fmt: skip
    for child in children:
        if child.id == a.id:
            child_rollouts(ctx, child.id, 3, 0.005)  # as often as the seed, half the cost
        elif child.id == b.id:
            child_rollouts(ctx, child.id, 5, 0.011)  # more passes, a little dearer
        else:
            child_rollouts(ctx, child.id, 1, 0.02)
    (merged,) = compose(ctx, 1)
    assert merged.parent == a.id and merged.epoch == 1
    # The merged tree holds both siblings' changes over the seed.
    seed = ctx.candidates()["c000"].commit
    changed = set(ctx.repo.changed_files(seed, merged.commit))
    assert changed == set(ctx.repo.changed_files(seed, a.commit)) | set(
        ctx.repo.changed_files(seed, b.commit)
    )
    for path in ctx.repo.changed_files(seed, b.commit):
        assert ctx.repo.files(merged.commit)[path] == ctx.repo.files(b.commit)[path]
    row = ctx.ledger.compositions().to_dict("records")[0]
    assert (row["outcome"], json.loads(row["children"]), row["candidate_id"]) == (
        "merge", [a.id, b.id], merged.id,
    )  # fmt: skip
    assert merged.id in ctx.candidates()  # validated and recorded like any candidate
    assert (ctx.run.reports() / "compositions.csv").is_file()


@pytest.mark.slow
def test_keep_base_when_no_sibling_gained(tmp_path: Path) -> None:
    ctx, children = epoch_one(tmp_path)
    for child in children:
        child_rollouts(ctx, child.id, 2, 0.012)
    assert compose(ctx, 1) == []
    with sqlite3.connect(ctx.run.ledger) as db:
        rows = db.execute("SELECT parent_id, outcome, children FROM compositions").fetchall()
    assert rows == [("c000", "keep-base", "[]")]
    assert "composer c000: keep-base" in ctx.console.export_text()


@pytest.mark.slow
def test_tiny_run_composes_and_evaluates_merges(finished_tiny_run: Path) -> None:
    with sqlite3.connect(finished_tiny_run / "ledger.sqlite") as db:
        outcomes = db.execute(
            "SELECT parent_id, outcome, candidate_id FROM compositions"
        ).fetchall()
        for _, outcome, made in outcomes:
            if made is not None:  # a merged candidate is evaluated on the coreset like any
                (n,) = db.execute(
                    "SELECT count(*) FROM rollouts WHERE candidate_id = ? AND split = 'coreset' "
                    "AND pass IS NOT NULL",
                    (made,),
                ).fetchone()
                assert outcome == "merge" and n == 3 * 2
    assert [o[0] for o in outcomes] == ["c000"]  # one decision for the one parent of epoch 1
