"""How well each label-free scorer agrees with the official tests on search rollouts.

    PYTHONPATH=$PWD .venv/bin/python scripts/scorer_agreement.py RUN_DIR [RUN_DIR ...]

Run folders need official verdicts on search rollouts (`evaluation.official_on_search: true`,
e.g. `harnesspro bench --set evaluation.official_on_search=true`). Each coreset rollout is
graded again, whatever scorer its run used, by three versions of its task's test:

- `frozen as stored`: the test the run froze (the synthesizer of the run's own commit);
- `synthesized now`: the test this code's synthesizer writes from the run's stored seed
  rollouts (seed votes and the instruction's checks), gated as a run gates it;
- `refined now`: that test refined by search consensus over all the run's scored coreset
  rollouts (evaluation/refinement.py as at the run's last score step), gated likewise;

each alone and together with the trajectory judgement (a pass needs both, as the search scores
by default). Failure is the positive class. For each it prints accuracy, failure recall and
precision, recall on official failures whose trajectory prints no error marker, and, per
candidate, how often two candidates are ordered on coreset pass rate as the official tests
order them; then, for `refined now`, each check kind alone (seed / instruction / search):
recall, precision, and the share of scorable tasks where the kind abstains (has no check).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from itertools import combinations
from pathlib import Path

import pandas as pd

from harnesspro.core.ledger import Ledger
from harnesspro.core.records import Task
from harnesspro.evaluation.scoring import FrozenTest, grade, needs_judgement, parse_test
from harnesspro.improvers.testsynth.check import INSTRUCTION, SEARCH, SEED
from harnesspro.improvers.testsynth.consensus import Voter, candidates
from harnesspro.improvers.testsynth.facts import snapshot_facts
from harnesspro.improvers.testsynth.gate import gated, refusal, untouched_workspace
from harnesspro.improvers.testsynth.judge import judge
from harnesspro.improvers.testsynth.offline import SeedRollout, SynthTest, failures, synthesize
from harnesspro.reports.agreement import Agreement, agreement
from harnesspro.reports.check_kinds import shows_error
from harnesspro.run.context import SEED_ID
from harnesspro.run.folder import RunFolder
from harnesspro.sandbox import make_sandbox
from harnesspro.sandbox.contract import Limits
from harnesspro.sandbox.snapshot import Snapshot
from harnesspro.tasks.loader import builtin_suite_dir, load_task

VERSIONS = ("frozen as stored", "synthesized now", "refined now")
KINDS = (SEED, INSTRUCTION, SEARCH)
SANDBOX = make_sandbox("bubblewrap", Limits())


def stored_tests(root: Path) -> dict[str, FrozenTest]:
    ledger = Ledger(root / "ledger.sqlite")
    try:
        frozen = ledger.frozen_tests()
    finally:
        ledger.close()
    return {t: parse_test((root / rel).read_text()) for t, (_, rel) in frozen.items()}


def both_tests(
    task: Task, seed: list[SeedRollout], voting: list[tuple[Snapshot, str, str]]
) -> tuple[SynthTest, SynthTest]:
    """(the test synthesized from the seed's rollouts, its refinement by the `voting`
    rollouts as (workspace, chat log, status)), each gated as a run gates it."""
    untouched = untouched_workspace(task, SANDBOX)
    test = synthesize(task.id, task.instruction, task.workdir, seed, SANDBOX)
    test = gated(test, untouched, [r.workspace for r in seed], SANDBOX)
    voters = [
        Voter(snapshot_facts(space, test.reading, SANDBOX), judge(chat, status))
        for space, chat, status in voting
    ]
    spaces = [space for space, _, _ in voting]
    tried = [t for t in candidates(test, voters) if not refusal(t, untouched, spaces, SANDBOX)]
    return test, (tried or [test])[0]


def written_now(root: Path, task_id: str) -> tuple[SynthTest, SynthTest]:
    """(the test this code synthesizes from the stored seed rollouts, its refinement by all
    of the run's scored search rollouts), each gated."""
    folder, task = RunFolder(root), load_task(builtin_suite_dir() / task_id)
    ledger = Ledger(root / "ledger.sqlite")
    try:
        voting = ledger.search_rollouts(task_id)
    finally:
        ledger.close()
    seed_keys = [r.key for r in voting if r.candidate_id == SEED_ID and r.split == "coreset"]
    seed = [SeedRollout(folder.workspace(k), folder.trajectory(k)) for k in seed_keys]
    everyone = [(folder.workspace(r.key), folder.chat_log(r.key), r.status) for r in voting]
    return both_tests(task, seed, everyone)


def search_rollouts(root: Path) -> pd.DataFrame:
    """Coreset rollouts with an official verdict, graded by each version's test (`pass:V`,
    NaN where the task has no scorable test of that version), the judgement (`judged`), and
    the kinds of the refined test's checks each fails (`kinds`)."""
    ledger = Ledger(root / "ledger.sqlite")
    try:
        every = ledger.rollouts()
    finally:
        ledger.close()
    stored = stored_tests(root)
    now = {t: written_now(root, t) for t in stored}
    tests = {
        VERSIONS[0]: stored,
        VERSIONS[1]: {t: pair[0] for t, pair in now.items()},
        VERSIONS[2]: {t: pair[1] for t, pair in now.items()},
    }
    coreset = every["split"].fillna("coreset") == "coreset"
    rows = every[(every["status"] != "infra_error") & coreset & every["task_id"].isin(list(stored))]
    rows = rows.dropna(subset=["official_pass"]).copy()
    folder = RunFolder(root)
    spaces = {k: folder.workspace(k) for k in rows["key"]}
    for version, by_task in tests.items():
        rows[f"pass:{version}"] = [
            None if by_task[t].unscorable else grade(by_task[t], spaces[k], SANDBOX)
            for k, t in zip(rows["key"], rows["task_id"], strict=True)
        ]
        rows[f"sees:{version}"] = [not needs_judgement(by_task[t]) for t in rows["task_id"]]
    refined = tests[VERSIONS[2]]
    rows["kinds"] = [
        ",".join(sorted({c.kind for c in failures(refined[t], spaces[k], SANDBOX)}))  # type: ignore[arg-type]
        for k, t in zip(rows["key"], rows["task_id"], strict=True)
    ]
    rows["judged"] = [
        judge(folder.chat_log(k), str(s)) for k, s in zip(rows["key"], rows["status"], strict=True)
    ]
    rows["marker"] = [shows_error(folder.trajectory(k)) for k in rows["key"]]
    rows["run"] = root.name
    rows["abstains"] = [
        ",".join(k for k in KINDS if not any(c.kind == k for c in refined[t].checks))  # type: ignore[union-attr]
        for t in rows["task_id"]
    ]
    return rows


Scorer = Callable[[Mapping[str, object]], bool]


def scorers(versions: Iterable[str] = VERSIONS) -> dict[str, tuple[str, Scorer]]:
    made: dict[str, tuple[str, Scorer]] = {}
    for v in versions:
        made[f"{v}"] = (v, lambda r, v=v: bool(r[f"pass:{v}"]))
        made[f"{v} + judgement"] = (v, lambda r, v=v: bool(r[f"pass:{v}"]) and bool(r["judged"]))
        made[f"{v} + judgement where it sees no value"] = (
            v,
            lambda r, v=v: bool(r[f"pass:{v}"]) and (bool(r[f"sees:{v}"]) or bool(r["judged"])),
        )
    return made


def order_agreement(rows: pd.DataFrame, scorer: Scorer) -> tuple[int, int]:
    """(pairs ordered as the official tests order them, pairs the official tests separate),
    over candidate pairs within each run."""
    agree = total = 0
    for _, run in rows.groupby("run"):
        mine = [scorer(r) for r in run.to_dict("records")]
        rates = run.assign(mine=mine).groupby("candidate_id")[["mine", "official_pass"]].mean()
        for a, b in combinations(rates.index, 2):
            official = rates.at[a, "official_pass"] - rates.at[b, "official_pass"]
            if official == 0:
                continue
            diff = rates.at[a, "mine"] - rates.at[b, "mine"]
            total += 1
            agree += (diff > 0) == (official > 0) and diff != 0
    return agree, total


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1%}"


def report(rows: pd.DataFrame, versions: Iterable[str] = VERSIONS) -> Iterable[str]:
    yield f"{len(rows)} search rollouts from {rows['run'].nunique()} runs"
    yield (
        "| scorer | rollouts scored | accuracy | failure recall | failure precision | "
        "recall, no error marker | candidate order |"
    )
    yield "|---|---|---|---|---|---|---|"
    for name, (version, scorer) in scorers(versions).items():
        scored = rows[rows[f"pass:{version}"].notna()]
        records = scored.to_dict("records")
        a: Agreement = agreement([scorer(r) for r in records], list(scored["official_pass"] == 1))
        quiet = scored[(scored["official_pass"] != 1) & ~scored["marker"].astype(bool)]
        caught = sum(not scorer(r) for r in quiet.to_dict("records"))
        agree, total = order_agreement(scored, scorer)
        order = f"{agree}/{total} ({agree / total:.1%})" if total else "n/a"
        yield (
            f"| {name} | {len(scored)} | {pct(a.accuracy)} | {pct(a.failure_recall)} | "
            f"{pct(a.failure_precision)} | {caught}/{len(quiet)} | {order} |"
        )
    yield from by_kind(rows)


def by_kind(rows: pd.DataFrame) -> Iterable[str]:
    """Each check kind of the refined test alone."""
    scored = rows[rows[f"pass:{VERSIONS[2]}"].notna()]
    failed = scored["official_pass"] != 1
    tasks = scored.drop_duplicates(["run", "task_id"])
    yield ""
    yield (
        "| check kind (refined now) | failures caught | failure recall | failure precision | "
        "abstains on tasks |"
    )
    yield "|---|---|---|---|---|"
    for kind in KINDS:
        hit = scored["kinds"].str.split(",").apply(lambda ks, k=kind: k in ks)
        caught, flagged = int((hit & failed).sum()), int(hit.sum())
        recall = caught / int(failed.sum()) if failed.any() else None
        precision = caught / flagged if flagged else None
        abstain = int(tasks["abstains"].str.contains(kind).sum())
        yield (
            f"| {kind} | {caught}/{int(failed.sum())} | {pct(recall)} | {pct(precision)} | "
            f"{abstain}/{len(tasks)} |"
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
    rows = pd.concat([search_rollouts(Path(a)) for a in argv], ignore_index=True)
    if rows.empty:
        print("no search rollouts with both verdicts; run with evaluation.official_on_search")
        return 2
    print("\n".join(report(rows)))
    common = rows.dropna(subset=[f"pass:{v}" for v in VERSIONS])
    print("\nOn the rollouts every version scores:")
    print("\n".join(list(report(common))[:-6]))
    print(quiet_share(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
