"""An unpriced model under `allow_unpriced`: cost is unknown everywhere, never 0; every JSON file
stays valid; the plots switch to tokens per task and say so."""

from __future__ import annotations

import contextlib
import io
import json
import math
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from plotly.offline import get_plotlyjs

from harnesspro.cli import main
from harnesspro.reports import figures, frames
from harnesspro.reports.pareto_plot import TOKEN_AXIS
from harnesspro.reports.rundata import load_run
from tests.conftest import built_once

pytestmark = pytest.mark.slow  # a run per module fixture (scheduled first)


@pytest.fixture(scope="module")
def unpriced_run(request: pytest.FixtureRequest) -> tuple[Path, str]:
    """The run folder and everything `evolve` printed."""

    def build(folder: Path) -> None:
        request.getfixturevalue("ray_session")
        config = folder / "unpriced.yaml"
        config.write_text(
            "name: unpriced\n"
            "model: {name: mystery-model, upstream: scripted, allow_unpriced: true}\n"
            "tasks: {test_fraction: 0.1}\n"
            "coreset: {size: 2}\n"
            "evolution: {epochs: 1, rollouts_per_task: 1}\n"
            "evaluation: {validation_tasks: 1, validation_rollouts: 1, attempts: 1,\n"
            "             official_on_search: false}\n"
        )
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert main(["evolve", "--config", str(config), "--run-dir", str(folder / "run")]) == 0
        (folder / "printed.txt").write_text(printed.getvalue())

    folder = built_once(request, "unpriced", build)
    return folder / "run", (folder / "printed.txt").read_text()


def _strict_json(text: str) -> object:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in JSON")

    return json.loads(text, parse_constant=refuse)


def test_unpriced_model_runs_with_unknown_cost(
    unpriced_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _ = unpriced_run
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        ((rollouts, unknown),) = db.execute("SELECT count(*), sum(cost IS NULL) FROM rollouts")
    assert rollouts > 0 and unknown == rollouts
    capsys.readouterr()
    # `profiles` and `--profile` (below): the old names, aliases of `points` and `--point`
    assert main(["profiles", str(run_dir), "--json"]) == 0
    profiles = _strict_json(capsys.readouterr().out)
    assert isinstance(profiles, dict)
    assert all(p["cost_per_task"] is None for p in profiles.values())
    assert main(["report", str(run_dir)]) == 0
    assert "unknown" in capsys.readouterr().out


def test_every_json_is_valid_and_says_null(unpriced_run: tuple[Path, str], tmp_path: Path) -> None:
    run_dir, _ = unpriced_run
    assert main(["export", str(run_dir), "--profile", "lite", "--out", str(tmp_path / "x")]) == 0
    files = [*(run_dir / "reports").rglob("*.json"), tmp_path / "x" / "provenance.json"]
    assert {p.name for p in files} >= {"budget.json", "final.json", "agreement.json"}
    for path in files:
        _strict_json(path.read_text())
    budget = _strict_json((run_dir / "reports" / "budget.json").read_text())
    assert isinstance(budget, dict)
    assert budget["search"][1]["spent"] is None and budget["final_dollars"] is None
    assert all(e["target_dollars"] is None for e in budget["epochs"])
    provenance = _strict_json((tmp_path / "x" / "provenance.json").read_text())
    assert isinstance(provenance, dict) and provenance["coreset"]["cost_per_task"] is None
    assert "unknown" in (tmp_path / "x" / "README.md").read_text()


def test_no_dollar_zero_for_unknown_costs(unpriced_run: tuple[Path, str]) -> None:
    run_dir, printed = unpriced_run
    assert "$0" not in printed and "nan" not in printed.lower()
    assert "cost unknown" in printed and "prediction unknown" in printed  # prediction checks
    for csv in [
        run_dir / "reports" / "costs.csv",
        *(run_dir / "reports").glob("epoch-*/costs.csv"),
    ]:
        table = pd.read_csv(csv, dtype=str)
        for column in [c for c in table.columns if "dollars" in c]:
            assert set(table[column]) == {"unknown"}, (csv, column)
    page = (run_dir / "dashboard.html").read_text().replace(get_plotlyjs(), "")
    assert "$0" not in page and "unknown $" in page


def test_plots_switch_to_tokens_per_task(unpriced_run: tuple[Path, str]) -> None:
    run_dir, _ = unpriced_run
    front = frames.fronts(load_run(run_dir))
    assert (front["axis"] == "tokens").all()
    assert front["x"].gt(0).all() and front["x"].map(math.isfinite).all()
    fig = figures.front_figure(front, 0.9)
    assert fig.layout.xaxis.title.text == TOKEN_AXIS
    assert any(len(trace.x) > 0 for trace in fig.data)  # the plot is not empty
    assert TOKEN_AXIS in (run_dir / "reports" / "epoch-1" / "pareto.html").read_text()
    hv = frames.hypervolumes(load_run(run_dir), front)
    assert (hv["axis"] == "tokens").all() and hv["hypervolume"].gt(0).all()
