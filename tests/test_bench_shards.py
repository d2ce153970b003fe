"""`harnesspro bench --workers N`: profiles dealt over the children, each child's command is
the bench's own with its share of the profiles and no `--workers`."""

from __future__ import annotations

import sys

from harnesspro.bench.shards import child_argv, shares


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
