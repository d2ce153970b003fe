"""A harness with nothing to search says so at the start, and an epoch that makes no new
candidate stops the search with one sentence naming why, never quiet empty epochs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harnesspro.core.ledger import Ledger
from harnesspro.evolution.surface import empty_epoch_reason, surface_line
from harnesspro.run.context import seed_template
from tests.conftest import evolve_tiny_in

MANIFEST = '[harness]\nname = "seed"\ncommand = ["{python}", "-m", "agent"]\n'
# The seed with one knob whose only other value names a prompt file that is not there: the
# agent cannot start, so every candidate fails its smoke rollout and is discarded.
BROKEN = """
[[knob]]
name = "system_file"
file = "harness.yaml"
key = "prompts.system"
type = "str"
values = ["prompts/system.md", "prompts/missing.md"]
lever = "prompt"
"""


def harness(folder: Path, knobs: str) -> Path:
    shutil.copytree(seed_template(), folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "harness.toml").write_text(MANIFEST + knobs)
    return folder


def test_the_lines_in_words() -> None:
    assert surface_line("mine", 3, "catalog") == ""
    line = surface_line("mine", 0, "catalog")
    assert line.startswith("harness mine declares no knobs") and "evolution.improver: llm" in line
    assert "only changes the llm improver writes" in surface_line("mine", 0, "llm")
    reason = empty_epoch_reason(1, ["discarded: smoke rollout ended harness_error"] * 2)
    assert reason == (
        "every plan of epoch 1 was discarded or repeated an earlier candidate (2 plans; every "
        "one: discarded: smoke rollout ended harness_error): the search stops"
    )
    assert empty_epoch_reason(2, []).startswith("epoch 2 proposed no change")


def run(
    folder: Path, seed: Path, capsys: pytest.CaptureFixture[str], strategy: str = "harnesspro"
) -> tuple[str, str]:
    evolution = {"strategy": strategy, "epochs": 3, "rollouts_per_task": 1}
    evaluation = {"final": False, "validation_rollouts": 0}
    run_dir = evolve_tiny_in(
        folder, evolution=evolution, evaluation=evaluation, harness={"seed": str(seed)}
    )
    ledger = Ledger(run_dir / "ledger.sqlite")
    stopped, epochs = ledger.meta("stopped"), set(ledger.finished_epochs()["epoch"])
    ledger.close()
    assert epochs == {0, 1}  # never three quiet empty epochs
    return str(stopped), capsys.readouterr().out


@pytest.mark.slow
def test_every_candidate_discarded_stops_the_search(
    tmp_path: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    stopped, out = run(tmp_path, harness(tmp_path / "broken", BROKEN), capsys)
    assert stopped.startswith("every plan of epoch 1 was discarded")
    assert "every one: discarded: smoke rollout ended harness_error" in stopped
    assert stopped[:60] in out


@pytest.mark.slow
def test_a_harness_without_knobs_says_so_and_stops(
    tmp_path: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # harnesspro-catalog's offline improver has only genes: nothing to try here
    stopped, out = run(tmp_path, harness(tmp_path / "bare", ""), capsys, "harnesspro-catalog")
    assert "harness bare declares no knobs" in out
    assert stopped.startswith("epoch 1 proposed no change")


def test_the_loop_s_start_line_names_the_rule_based_improver_s_written_changes() -> None:
    line = surface_line("mine", 0, "catalog", writes=True)
    assert "only the changes the rule-based improver writes are tried" in line
    assert "has nothing to change" not in line


@pytest.mark.slow
def test_the_loop_writes_its_own_changes_on_a_harness_without_knobs(
    tmp_path: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    evolution = {"strategy": "harnesspro", "epochs": 1, "rollouts_per_task": 1}
    run_dir = evolve_tiny_in(
        tmp_path, evolution=evolution, evaluation={"final": False, "validation_rollouts": 0},
        harness={"seed": str(harness(tmp_path / "bare", ""))},
    )  # fmt: skip
    assert "the rule-based improver writes" in capsys.readouterr().out
    ledger = Ledger(run_dir / "ledger.sqlite")
    plans = ledger.plans()
    ledger.close()
    made = plans[plans["child_id"].notna()]
    assert len(made) and (made["kind"] == "free").all()
