"""The benchmark's test split: sizes and strata against shares worked out independently from
the built-in suite's own counts, and the resolution line by hand."""

from __future__ import annotations

import math
from collections import Counter

from harnesspro.bench.split import bench_splits, largest_remainder, resolution
from harnesspro.tasks.loader import load_suite, reference_steps


def test_largest_remainder_by_hand() -> None:
    # 14 x (7, 6, 6) / 19 = 5.16, 4.42, 4.42: floors 5, 4, 4 and one slot to a 0.42 (by name)
    assert largest_remainder({"a": 7, "b": 6, "c": 6}, 14) == {"a": 5, "b": 5, "c": 4}


def test_the_test_split_is_stratified_by_category_and_step_count() -> None:
    tasks = load_suite("builtin")
    splits = bench_splits(tasks, 14, seed=0, coreset_size=4)
    assert len(splits.test) == 14 and len(splits.coreset) == 4
    everything = [*splits.test, *splits.coreset, *splits.validation]
    assert sorted(everything) == sorted(t.id for t in tasks)  # disjoint and complete
    by_id = {t.id: t for t in tasks}
    sizes = Counter(t.category for t in tasks)
    chosen = Counter(by_id[i].category for i in splits.test)
    for category, size in sizes.items():
        share = 14 * size / len(tasks)
        assert math.floor(share) <= chosen[category] <= math.ceil(share), category
    multi = [t for t in tasks if len(reference_steps(t)) >= 3]
    picked = sum(len(reference_steps(by_id[i])) >= 3 for i in splits.test)
    assert picked == round(14 * len(multi) / len(tasks))
    assert bench_splits(tasks, 14, seed=0, coreset_size=4) == splits  # deterministic
    assert bench_splits(tasks, 14, seed=1, coreset_size=4).test != splits.test


def test_resolution_line() -> None:
    # 14 x 3 = 42 rollouts: one is 100 / 42 = 2.38 points
    assert resolution(14, 3) == (
        "Resolution: 14 test tasks x K = 3 attempts = 42 rollouts per point; one rollout "
        "moves a pass rate by 2.4 points."
    )
