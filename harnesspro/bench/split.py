"""The benchmark's test split: stratified by category and step count, sized so that one
rollout is a small step of a pass rate.

The n test slots are shared among categories in proportion to their size (largest
remainder: each within one task of its share), then inside each category between short and
multi-step tasks (a reference solution of MANY_STEPS steps or more) so that the split's
multi-step share is proportional too; each stratum's tasks are taken in a seeded hash order.
The coreset is then drawn from the rest by the same DPP as any run; the remainder is
validation.
"""

from __future__ import annotations

import hashlib

from harnesspro.core.records import Task
from harnesspro.tasks.coreset import select_coreset
from harnesspro.tasks.loader import reference_steps
from harnesspro.tasks.splits import Splits

MANY_STEPS = 3  # a reference solution of this many steps or more is "multi-step"


def step_bucket(task: Task) -> str:
    return "multi-step" if len(reference_steps(task)) >= MANY_STEPS else "short"


def _rank(seed: int, task_id: str) -> str:
    return hashlib.sha256(f"bench-split:{seed}:{task_id}".encode()).hexdigest()


def largest_remainder(sizes: dict[str, int], n: int) -> dict[str, int]:
    """`n` slots shared in proportion to `sizes` (Hamilton's method; ties by name)."""
    total = sum(sizes.values())
    quotas = {k: n * v / total for k, v in sizes.items()}
    out = {k: int(q) for k, q in quotas.items()}
    by_remainder = sorted(quotas, key=lambda k: (-(quotas[k] - out[k]), k))
    for k in by_remainder[: n - sum(out.values())]:
        out[k] += 1
    return out


def allocation(tasks: list[Task], n_test: int) -> dict[tuple[str, str], int]:
    """Test slots per (category, step bucket): categories by largest remainder, then the
    buckets inside each so that the whole split's multi-step share is proportional too."""
    strata: dict[tuple[str, str], int] = {}
    for t in tasks:
        key = (t.category, step_bucket(t))
        strata[key] = strata.get(key, 0) + 1
    categories: dict[str, int] = {}
    for (category, _), size in strata.items():
        categories[category] = categories.get(category, 0) + size
    per_category = largest_remainder(categories, n_test)
    multi_total = sum(v for (_, b), v in strata.items() if b == "multi-step")
    want_multi = round(n_test * multi_total / len(tasks))
    out, spare = {}, []
    for category, slots in per_category.items():
        multi = strata.get((category, "multi-step"), 0)
        quota = slots * multi / categories[category]
        out[(category, "multi-step")] = int(quota)
        out[(category, "short")] = int(slots - quota)
        if slots - int(quota) - int(slots - quota) > 0:  # one slot left to place
            spare.append((-(quota - int(quota)), category))
    owed = want_multi - sum(v for (_, b), v in out.items() if b == "multi-step")
    for rank, (_, category) in enumerate(sorted(spare)):
        fits = out[(category, "multi-step")] < strata.get((category, "multi-step"), 0)
        bucket = "multi-step" if rank < owed and fits else "short"
        out[(category, bucket)] += 1
    return {k: v for k, v in out.items() if v}


def stratified_test(tasks: list[Task], n_test: int, seed: int) -> tuple[str, ...]:
    """`n_test` task ids: each stratum's share (`allocation`), its tasks by seeded hash."""
    if not 0 < n_test <= len(tasks):
        raise ValueError(f"a test split of {n_test} from {len(tasks)} tasks")
    picked: list[str] = []
    for (category, bucket), slots in sorted(allocation(tasks, n_test).items()):
        members = [t for t in tasks if t.category == category and step_bucket(t) == bucket]
        members.sort(key=lambda t: _rank(seed, t.id))
        picked += [t.id for t in members[:slots]]
    return tuple(sorted(picked))


def bench_splits(tasks: list[Task], n_test: int, seed: int, coreset_size: int) -> Splits:
    """The stratified test split, a DPP coreset of the rest, the remainder as validation."""
    test = set(stratified_test(tasks, n_test, seed))
    pool = sorted((t for t in tasks if t.id not in test), key=lambda t: t.id)
    picked = select_coreset([t.instruction for t in pool], min(coreset_size, len(pool)))
    coreset = tuple(sorted(pool[i].id for i in picked))
    return Splits(
        coreset=coreset,
        validation=tuple(t.id for t in pool if t.id not in coreset),
        test=tuple(sorted(test)),
    )


def resolution(test_tasks: int, attempts: int) -> str:
    """What one rollout is worth on a point's test pass rate."""
    if test_tasks <= 0 or attempts <= 0:
        return "Resolution: no test split."
    n = test_tasks * attempts
    return (
        f"Resolution: {test_tasks} test tasks x K = {attempts} attempts = {n} rollouts per "
        f"point; one rollout moves a pass rate by {100 / n:.1f} points."
    )
