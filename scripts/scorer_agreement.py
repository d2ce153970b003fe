"""How well each label-free scorer agrees with the official tests on search rollouts.

    PYTHONPATH=$PWD .venv/bin/python scripts/scorer_agreement.py RUN_DIR [RUN_DIR ...]

Run folders need official verdicts on search rollouts (`evaluation.official_on_search: true`,
e.g. `harnesspro bench --set evaluation.official_on_search=true`). Each rollout is graded
again by its task's frozen test and by the trajectory judgement (testsynth/judge.py),
whatever scorer its run used. For the frozen test, the judgement and both together (a pass
needs both) it prints per-rollout agreement with the official verdict (failure is the
positive class) and, per candidate, how often two candidates are ordered on coreset pass rate
as the official tests order them (pairs the official tests tell apart), and the share of
official failures whose trajectory prints no error marker.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from itertools import combinations
from pathlib import Path

import pandas as pd

from harnesspro.core.ledger import Ledger
from harnesspro.evaluation.scoring import grade, parse_test
from harnesspro.improvers.testsynth.judge import judge
from harnesspro.improvers.testsynth.offline import FAILURE_MARKERS
from harnesspro.reports.agreement import Agreement, agreement
from harnesspro.run.folder import RunFolder
from harnesspro.sandbox import make_sandbox
from harnesspro.sandbox.contract import Limits

Scorer = Callable[[pd.Series], bool]
SCORERS: dict[str, Scorer] = {
    "frozen tests": lambda r: bool(r["pass"]),
    "trajectory judgement": lambda r: bool(r["judged"]),
    "both": lambda r: bool(r["pass"]) and bool(r["judged"]),
}


def search_rollouts(root: Path) -> pd.DataFrame:
    """Coreset rollouts of scorable tasks with an official verdict, graded again here by
    their frozen test alone (`pass`) and by the trajectory judgement (`judged`), whatever
    scorer the run itself used."""
    ledger = Ledger(root / "ledger.sqlite")
    try:
        rows, frozen = ledger.rollouts(), ledger.frozen_tests()
    finally:
        ledger.close()
    tests = {t: parse_test((root / rel).read_text()) for t, (_, rel) in frozen.items()}
    tests = {t: test for t, test in tests.items() if not test.unscorable}
    coreset = rows["split"].fillna("coreset") == "coreset"
    rows = rows[(rows["status"] != "infra_error") & coreset & rows["task_id"].isin(list(tests))]
    rows = rows.dropna(subset=["official_pass"]).copy()
    folder, sandbox = RunFolder(root), make_sandbox("bubblewrap", Limits())
    rows["pass"] = [
        grade(tests[t], folder.workspace(k), sandbox)
        for k, t in zip(rows["key"], rows["task_id"], strict=True)
    ]
    rows["judged"] = [
        judge(folder.chat_log(k), str(s)) for k, s in zip(rows["key"], rows["status"], strict=True)
    ]
    rows["marker"] = [shows_error(folder.trajectory(k)) for k in rows["key"]]
    rows["run"] = root.name
    return rows


def shows_error(trajectory: str) -> bool:
    """Whether any tool result prints an error marker (the judge's and the offline
    synthesizer's FAILURE_MARKERS) or an error event was logged."""
    for line in trajectory.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("type") == "error":
            return True
        output = str(event.get("output"))
        if event.get("type") == "tool_result" and any(m in output for m in FAILURE_MARKERS):
            return True
    return False


def order_agreement(rows: pd.DataFrame, scorer: Scorer) -> tuple[int, int]:
    """(pairs ordered as the official tests order them, pairs the official tests separate),
    over candidate pairs within each run."""
    agree = total = 0
    for _, run in rows.groupby("run"):
        verdicts = run.assign(mine=run.apply(scorer, axis=1))
        rates = verdicts.groupby("candidate_id")[["mine", "official_pass"]].mean()
        for a, b in combinations(rates.index, 2):
            official = rates.at[a, "official_pass"] - rates.at[b, "official_pass"]
            if official == 0:
                continue
            mine = rates.at[a, "mine"] - rates.at[b, "mine"]
            total += 1
            agree += (mine > 0) == (official > 0) and mine != 0
    return agree, total


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1%}"


def report(rows: pd.DataFrame) -> Iterable[str]:
    official = list(rows["official_pass"] == 1)
    yield f"{len(rows)} search rollouts from {rows['run'].nunique()} runs"
    yield "| scorer | accuracy | failure recall | failure precision | candidate order |"
    yield "|---|---|---|---|---|"
    for name, scorer in SCORERS.items():
        a: Agreement = agreement([scorer(r) for _, r in rows.iterrows()], official)
        agree, total = order_agreement(rows, scorer)
        order = f"{agree}/{total} ({agree / total:.1%})" if total else "n/a"
        yield (
            f"| {name} | {pct(a.accuracy)} | {pct(a.failure_recall)} | "
            f"{pct(a.failure_precision)} | {order} |"
        )


def quiet_share(rows: pd.DataFrame) -> str:
    """How many official failures print no error marker anywhere in their trajectory."""
    failed = rows[rows["official_pass"] != 1]
    quiet = int((~failed["marker"].astype(bool)).sum())
    n = len(failed)
    share = f"{quiet / n:.1%}" if n else "n/a"
    return f"official failures with no error marker in any tool result: {quiet}/{n} ({share})"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    missing = [a for a in argv if not (Path(a) / "ledger.sqlite").is_file()]
    if missing:
        print(f"{missing[0]}: no ledger.sqlite; pass run folders (e.g. OUT/runs/* of a bench)")
        return 2
    frames = [search_rollouts(Path(a)) for a in argv]
    rows = pd.concat(frames, ignore_index=True)
    if rows.empty:
        print("no search rollouts with both verdicts; run with evaluation.official_on_search")
        return 2
    print("\n".join(report(rows)))
    print(quiet_share(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
