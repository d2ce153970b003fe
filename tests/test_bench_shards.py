"""`harnesspro bench --workers N`: profiles dealt over the children, each child's command is
the bench's own with its share of the profiles and no `--workers`."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import pytest
from rich.console import Console

from harnesspro.bench import command
from harnesspro.bench.shards import child_argv, shares

ROOT = Path(__file__).resolve().parents[1]


def test_profiles_are_dealt_round_robin_to_non_empty_shares() -> None:
    assert shares([11, 12, 13, 14, 15], 2) == [[11, 13, 15], [12, 14]]
    assert shares([11, 12], 4) == [[11], [12]]  # never an empty worker
    assert sorted(sum(shares(list(range(60)), 3), [])) == list(range(60))


def test_a_child_runs_the_same_command_on_its_profiles() -> None:
    argv = ["bench", "--config", "c.yaml", "--profile-seeds", "1,2,3", "--fast"]
    argv += ["--workers", "2", "--set=seed=4", "--out", "/o"]
    assert child_argv(argv, [1, 3]) == [
        sys.executable, "-m", "harnesspro", "bench", "--config", "c.yaml", "--fast",
        "--set=seed=4", "--out", "/o", "--profile-seeds", "1,3",
    ]  # fmt: skip
    assert "--workers" not in child_argv(["bench", "--workers=3", "--profile-seeds=1"], [1])


class Stop(Exception):
    """Ends the bench right after its children, before any run."""


def test_the_parent_command_is_what_command_txt_keeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every child writes its own command (its profiles, no --workers) into the shared OUT
    def children(argv: object, seeds: object, workers: object, out: Path, console: object) -> None:
        (out / "command.txt").write_text("harnesspro bench --profile-seeds 1\n")

    def stop(ray: object) -> None:
        raise Stop

    monkeypatch.setattr(command, "run_shards", children)
    monkeypatch.setattr(command, "start_ray", stop)
    monkeypatch.chdir(ROOT)
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    argv = ["bench", "--profile-seeds", "1,2", "--workers", "2", "--fast", "--out", str(tmp_path)]
    with pytest.raises(Stop):
        command.cmd_bench(parser.parse_args(argv), Console(file=io.StringIO()))
    kept = (tmp_path / "command.txt").read_text()
    assert "--profile-seeds 1,2 " in kept and kept.rstrip().endswith("--workers 2")
