"""The experience library: a finished run files its measured plans; a second run on the same
model and task family reads them and does not plan what hurt."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console

from harnesspro.core.config import load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.records import Plan
from harnesspro.harness.mechanisms.catalog import LEVERS
from harnesspro.improvers.analyzer.rules import prevalence
from harnesspro.improvers.library import Library, LibraryLesson, harmful
from harnesspro.improvers.roles.dispatch import CatalogImprover
from harnesspro.run.context import RunContext
from harnesspro.run.disclosure import improver_inputs
from harnesspro.run.folder import RunFolder
from tests.conftest import COMMANDS, record, tiny_config, trajectory


def lesson(name: str, verdict: str, run: str = "/runs/a", model: str = "m") -> LibraryLesson:
    epoch = len(name) * 100 + len(verdict) + len(model)  # a distinct key per (name, verdict)
    return LibraryLesson(
        run, epoch, "balanced", model, "builtin", name, "catalog", "invariant", ("prompt",),
        ("t1",), "", 0.0, 0.0, 0.0, 0.1, verdict, "figures",
    )  # fmt: skip


def test_harmful_needs_more_hurt_than_helped() -> None:
    lessons = [
        lesson("a", "hurt"),
        lesson("b", "hurt"),
        lesson("b", "helped"),
        lesson("c", "no effect"),
    ]
    assert set(harmful(lessons)) == {"a"}
    assert harmful([*lessons, lesson("b", "hurt")]).keys() == {"a", "b"}


def test_lessons_filter_by_model_family_and_run(tmp_path: Path) -> None:
    library = Library(tmp_path / "deep" / "lib.sqlite")
    library.record(
        [lesson("a", "hurt"), lesson("bb", "hurt", model="other"), lesson("ccc", "hurt", run="/me")]
    )
    assert [x.name for x in library.lessons("m", "builtin", exclude_run="/me")] == ["a"]
    assert library.lessons("m", "elsewhere") == []
    library.close()


def second_run(folder: Path, library_file: Path, use: bool) -> list[Plan]:
    """A fresh run on the same model and suite with hand-recorded seed rollouts: its plans."""
    library = {"use": True, "path": str(library_file)} if use else {"use": False}
    folder.mkdir(parents=True)
    config = load_config(tiny_config(folder, library=library))
    ctx = RunContext.open(config, RunFolder(folder / "run"), Console(record=True))
    ctx.seed()
    for n, task_id in enumerate(ctx.splits.coreset):
        for attempt in (0, 1):
            text = trajectory(COMMANDS, output="x" * 10)
            record(ctx, f"k{n}{attempt}", task_id, "coreset", text, attempt == 0, attempt)
    inputs = improver_inputs(ctx, 1, ["c000"], diffs=False)
    assert bool(inputs.library) == use
    evolution = config.evolution  # plan as the first run planned
    roles = CatalogImprover(bundle=evolution.plan_bundle, disjoint=evolution.plans_disjoint)
    diagnoses, _ = roles.diagnose(inputs)
    seen = {"c000": prevalence(diagnoses, "c000", inputs.scores["c000"].n_rollouts)}
    plans, _ = roles.plan(inputs, diagnoses, seen)
    return plans


@pytest.mark.slow
def test_second_run_avoids_what_the_first_found_harmful(
    finished_tiny_run: Path, tmp_path: Path
) -> None:
    library_file = finished_tiny_run.parent / "library.sqlite"
    with sqlite3.connect(finished_tiny_run / "ledger.sqlite") as db:
        measured = db.execute(
            "SELECT epoch, mechanism, verdict, measured_pass, measured_cost FROM plans "
            "WHERE verdict IS NOT NULL ORDER BY 1, 2"
        ).fetchall()
    with sqlite3.connect(library_file) as db:
        filed = db.execute(
            "SELECT epoch, name, verdict, measured_pass, measured_cost FROM lessons "
            "WHERE model = 'scripted' AND family = 'builtin' ORDER BY 1, 2"
        ).fetchall()
    assert filed == measured and measured  # every measured plan, with its figures
    with sqlite3.connect(library_file) as db:
        levers = [json.loads(x) for (x,) in db.execute("SELECT levers FROM lessons")]
    assert all(found and set(found) <= set(LEVERS) for found in levers), levers  # bundles too
    hurt = {name for _, name, verdict, *_ in measured if verdict == "hurt"}
    assert hurt, f"the tiny run's epoch found nothing harmful to learn from: {measured}"
    without = {p.mechanism for p in second_run(tmp_path / "off", library_file, use=False)}
    assert hurt & without  # the second run would plan a harmful change on its own ...
    with_library = {p.mechanism for p in second_run(tmp_path / "on", library_file, use=True)}
    assert not hurt & with_library and len(with_library) == 3  # ... and with the library does not


def test_library_settings_without_use_are_refused(tmp_path: Path) -> None:
    config = tiny_config(tmp_path, library={"path": str(tmp_path / "lib.sqlite")})
    with pytest.raises(ConfigError, match="use: true"):
        load_config(config)
