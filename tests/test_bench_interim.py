"""`harnesspro bench interim OUT`: the tables of a bench under way, from its finished units and
their stored yardsticks, against a case worked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.bench.yardstick import Yardstick, path_for, save
from harnesspro.cli import main
from harnesspro.core.ledger import Ledger

MINE = {"seed": (0.5, 1.0), "lite": (0.5, 0.5), "medium": (0.75, 1.0), "heavy": (1.0, 2.0)}
THEIRS = {"seed": (0.5, 1.0), "lite": (0.5, 1.0), "medium": (0.5, 1.0), "heavy": (1.0, 1.5)}


def run(folder: Path, points: dict[str, tuple[float, float]] | None, search: int = 3) -> None:
    """A run folder; `points` None: still running (no held-out report yet)."""
    (folder / "reports").mkdir(parents=True)
    (folder / "splits.json").write_text(json.dumps({"test": ["t1", "t2"], "coreset": ["t3"]}))
    book = Ledger(folder / "ledger.sqlite")
    with book.db:
        book.db.executemany(
            "INSERT INTO rollouts (key, candidate_id, task_id, attempt, epoch, split, status) "
            "VALUES (?, 'c000', ?, ?, 0, ?, 'ok')",
            [(f"k{i}", "t3", i, "coreset") for i in range(search)] + [("t", "t1", 0, "test")],
        )
    book.close()
    if points is not None:
        pd.DataFrame(
            [{"harness": h, "pass_rate": p, "cost_per_task": c} for h, (p, c) in points.items()]
        ).to_csv(folder / "reports" / "final.csv", index=False)


def test_finished_units_on_their_stored_yardsticks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench"
    out.mkdir()
    (out / "command.txt").write_text("harnesspro bench --run-seeds 7 --out bench\n")
    run(out / "runs" / "harnesspro-p1-s7", MINE, search=4)
    run(out / "runs" / "nsga2-p1-s7", THEIRS, search=2)
    run(out / "runs" / "harnesspro-p2-s7", None)  # profile 2 under way
    # The stored yardstick of profile 1 holds the runs' points (as the bench stores them) and
    # one neither run found (an exhaustive single, say), (1.0, 1.0), so its
    # front is (0.5, 0.5), (1.0, 1.0): at reference cost 2 x 1.0 it covers
    # 1.5 x 0.5 + 1.0 x 0.5 = 1.25. harnesspro's points cover 1.5 x 0.5 + 1.0 x 0.25 = 1.0,
    # nsga2's 1.0 x 0.5 + 0.5 x 0.5 = 0.75: 0.8 and 0.6 (not 0.889 and 0.667, the figures of a
    # yardstick rebuilt from these two runs alone).
    found = [
        (f"{v}:{m}", p, c) for v, ps in (("a", MINE), ("b", THEIRS)) for m, (p, c) in ps.items()
    ]
    stick = Yardstick(1, 1.0, (*found, ("single:x", 1.0, 1.0)))
    save(path_for(out / "yardsticks", 1), stick)
    assert main(["bench", "interim", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("1 units finished, 1 under way or stopped.")
    assert "| harnesspro - nsga2 (normalised_hv) | 1 | +0.200 [" in text
    assert "| harnesspro | 0.800 [" in text and "| nsga2 | 0.600 [" in text
    assert "| 2 | 1/0/0 |" in text  # nsga2's search rollouts (coreset), harnesspro's win


def test_a_folder_that_is_not_a_bench_is_one_sentence_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "interim", str(tmp_path)]) == 2
    assert "no command.txt" in capsys.readouterr().err
    assert main(["bench", "interim", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err
