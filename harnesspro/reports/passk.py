"""pass@k and pass^k curves of the held-out attempts, per harness (pure, over ledger frames).

From n attempts of a task with c passes, the unbiased estimators are
pass@k = 1 - C(n-c, k) / C(n, k) (some of k attempts passes) and
pass^k = C(c, k) / C(n, k) (all k attempts pass); each is averaged over the tasks, for
k = 1..K where K is the smallest attempt count of any task.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import pandas as pd

from harnesspro.evaluation.heldout import pass_at_k

COLUMNS = ["harness", "candidate", "k", "pass_at_k", "pass_all_k"]


def pass_all_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k from n attempts with c successes: C(c, k) / C(n, k) (k <= n)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass^k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return comb(c, k) / comb(n, k)


def counts(frame: pd.DataFrame) -> list[tuple[int, int]]:
    """(attempts, passes) per task of one harness's held-out rollouts."""
    per_task = frame.groupby("task_id")["official_pass"].agg(["size", "sum"])
    return [(int(n), int(c)) for n, c in per_task.to_numpy()]


def curves(frame: pd.DataFrame, harnesses: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """One row per harness and k = 1..K: mean pass@k and pass^k over the test tasks.
    `frame` holds scored held-out rollouts (`official_pass` known); `harnesses` is
    [(label, candidate id)]."""
    rows = []
    for label, cid in harnesses:
        tasks = counts(frame[frame["candidate_id"] == cid])
        if not tasks:
            continue
        for k in range(1, min(n for n, _ in tasks) + 1):
            at = [pass_at_k(n, c, k) for n, c in tasks]
            every = [pass_all_k(n, c, k) for n, c in tasks]
            rows.append([label, cid, k, sum(at) / len(at), sum(every) / len(every)])
    return pd.DataFrame(rows, columns=COLUMNS)
