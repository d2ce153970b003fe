"""Bootstrap intervals and P(non-dominated): hand cases, pairing, determinism, NaN costs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harnesspro.core.pareto import non_dominated
from harnesspro.core.records import RolloutRow
from harnesspro.core.uncertainty import (
    bootstrap,
    nondominated_share,
    percentile_interval,
    resample,
    samples_from_rollouts,
)


def frame(rows: list[tuple[str, str, float, float]]) -> list[RolloutRow]:
    """Scored coreset rollouts (candidate, task, pass, dollars; NaN dollars: unknown)."""
    return [
        RolloutRow(f"k{i}", c, t, "coreset", "ok", bool(p), cost=None if math.isnan(d) else d)
        for i, (c, t, p, d) in enumerate(rows)
    ]


def test_samples_pack_attempts_and_count_them() -> None:
    f = frame([("a", "t1", 1, 0.1), ("a", "t1", 0, 0.2), ("a", "t2", 1, 0.3), ("b", "t2", 0, 0.4)])
    s = samples_from_rollouts(f)
    assert s.candidate_ids == ("a", "b")
    assert s.counts.tolist() == [[2, 1], [0, 1]]
    assert s.passed[0, 0].tolist() == [1.0, 0.0]
    assert np.isnan(s.passed[1, 0]).all()


def test_one_task_two_attempts_interval_by_hand() -> None:
    # Resampling attempts [1, 0] gives 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4, so the
    # central 90% interval is [0, 1] and the replicates average 0.5.
    pr, _ = resample(
        samples_from_rollouts(frame([("a", "t", 1, 1.0), ("a", "t", 0, 1.0)])), 4000, 1
    )
    assert set(np.unique(pr)) == {0.0, 0.5, 1.0}
    assert pr.mean() == pytest.approx(0.5, abs=0.03)
    assert percentile_interval(pr, 0.9)[0].tolist() == [0.0, 1.0]


def test_constant_outcomes_have_zero_width_intervals() -> None:
    rows = [("a", f"t{t}", 1, 0.25) for t in range(4) for _ in range(3)]
    u = bootstrap(frame(rows), n_resamples=200)["a"]
    assert u.pass_rate_ci == (1.0, 1.0)
    assert u.cost_ci == pytest.approx((0.25, 0.25))
    assert u.p_nondominated == 1.0


def test_tasks_are_drawn_once_for_all_candidates() -> None:
    # Two candidates with the same per-task outcomes get the same pass rate in every
    # replicate only if they share the task draw (attempts are constant within a task).
    rows = []
    for cid in ("a", "b"):
        for t, outcome in enumerate([1, 1, 0, 0, 1, 0, 1, 0]):
            rows += [(cid, f"t{t}", outcome, 1.0)] * 3
    pr, _ = resample(samples_from_rollouts(frame(rows)), 500, 3)
    assert pr.std(axis=0).min() > 0  # tasks really are resampled
    np.testing.assert_array_equal(pr[:, 0], pr[:, 1])


def test_a_candidate_better_on_every_rollout_is_always_non_dominated() -> None:
    rows = []
    for t in range(5):
        rows += [("good", f"t{t}", 1, 0.1), ("good", f"t{t}", t % 2, 0.1)]
        rows += [("bad", f"t{t}", 0, 0.3), ("bad", f"t{t}", 0, 0.4)]
    out = bootstrap(frame(rows), n_resamples=300)
    assert out["good"].p_nondominated == 1.0
    assert out["bad"].p_nondominated == 0.0


def test_pass_rate_interval_contains_the_point_estimate() -> None:
    rng = np.random.default_rng(0)
    rows = [
        (f"c{c}", f"t{t}", float(rng.random() < 0.3 + 0.2 * c), float(0.01 * (c + 1)))
        for c in range(3)
        for t in range(8)
        for _ in range(3)
    ]
    f = frame(rows)
    out = bootstrap(f, n_resamples=500, level=0.9, seed=7)
    for cid in ("c0", "c1", "c2"):
        lo, hi = out[cid].pass_rate_ci
        verdicts = [r.passed for r in f if r.candidate_id == cid]
        assert lo <= sum(verdicts) / len(verdicts) <= hi
        assert lo < hi


def test_seeded_and_deterministic() -> None:
    rows = [("a", f"t{t}", t % 2, 0.1 * t) for t in range(6)] + [
        ("b", f"t{t}", (t + 1) % 2, 0.05 * t) for t in range(6)
    ]
    assert bootstrap(frame(rows), seed=5) == bootstrap(frame(rows), seed=5)
    assert bootstrap(frame(rows), seed=5) != bootstrap(frame(rows), seed=6)


def test_nondominated_share_agrees_with_pareto_per_replicate() -> None:
    rng = np.random.default_rng(2)
    pr = rng.integers(0, 5, size=(200, 6)) / 4
    cost = rng.integers(1, 4, size=(200, 6)).astype(float)
    expected = np.zeros(6)
    for b in range(200):
        expected[non_dominated(pr[b], cost[b])] += 1
    np.testing.assert_allclose(nondominated_share(pr, cost), expected / 200)


def test_unknown_cost_gives_nan_not_zero() -> None:
    rows = [("a", "t1", 1, float("nan")), ("a", "t2", 0, float("nan"))]
    u = bootstrap(frame(rows), n_resamples=100)["a"]
    assert 0.0 <= u.pass_rate_ci[0] <= u.pass_rate_ci[1] <= 1.0
    assert np.isnan(u.cost_ci).all()
    assert np.isnan(u.p_nondominated)


def test_empty_frame() -> None:
    assert bootstrap(frame([])) == {}
