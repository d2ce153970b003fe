"""`harnesspro bench --workers N`: profiles dealt over the children, each child's command is
the bench's own with its share of the profiles and no `--workers`."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import pytest
from rich.console import Console

from harnesspro.bench import command, shards
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


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    return parser.parse_args(["bench", *argv])


def test_paired_run_seeds_make_one_unit_per_profile() -> None:
    paired = parsed("--profile-seeds", "40,10,30", "--run-seeds", "7,7,2", "--paired")
    assert command.unit_seeds(paired) == {40: [7], 10: [7], 30: [2]}  # a seed may recur
    crossed = parsed("--profile-seeds", "40,10", "--run-seeds", "7,2")
    assert command.unit_seeds(crossed) == {40: [7, 2], 10: [7, 2]}
    assert command.unit_seeds(parsed("--profile-seeds", "5")) == {5: [None]}
    assert "--paired" in command.command_line(paired).split()


@pytest.mark.parametrize(
    ("profiles", "runs"), [("1,2,3", "7,8"), ("1,2", "7,8,9"), ("1,1", "7,8"), ("1,2", "")]
)
def test_paired_seeds_that_do_not_pair_up_are_refused(profiles: str, runs: str) -> None:
    args = parsed("--profile-seeds", profiles, "--run-seeds", runs, "--paired")
    with pytest.raises(command.ConfigError, match="--paired"):
        command.unit_seeds(args)


def test_a_paired_child_gets_its_profiles_run_seeds_in_order() -> None:
    argv = ["bench", "--profile-seeds", "1,2,3", "--run-seeds=7,8,9", "--paired", "--workers", "2"]
    child = child_argv(argv, [1, 3], [7, 9])
    assert child[3:] == ["bench", "--paired", "--profile-seeds", "1,3", "--run-seeds", "7,9"]


def test_paired_shards_hand_each_child_its_profiles_run_seeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[list[str]] = []

    class Child:
        def __init__(self, argv: list[str], **_: object) -> None:
            started.append(argv)

        def wait(self) -> int:
            return 0

        def poll(self) -> int:
            return 0

    monkeypatch.setattr(shards.subprocess, "Popen", Child)
    argv = ["bench", "--profile-seeds", "1,2,3", "--run-seeds", "7,8,9", "--paired"]
    shards.run_shards(argv, {1: [7], 2: [8], 3: [9]}, 2, tmp_path, Console(file=io.StringIO()))
    tails = [a[a.index("--profile-seeds") :] for a in started]
    assert tails == [["--profile-seeds", "1,3", "--run-seeds", "7,9"],
                     ["--profile-seeds", "2", "--run-seeds", "8"]]  # fmt: skip
