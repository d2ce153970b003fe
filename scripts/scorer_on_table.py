"""The label-free scorer against the official tests on a calibration table's rollouts (the real
model's, `harnesspro calibrate`), as scripts/scorer_agreement.py measures it on search runs.

    PYTHONPATH=$PWD .venv/bin/python scripts/scorer_on_table.py TABLE.jsonl [SEED_VARIANT [SUITE]]

Only rows whose final working directory was kept (`<table>-trajectories/V/T-A.workspace.json`)
take part. Per task, the variant SEED_VARIANT (default `base`, the table's starting harness)
plays the seed: its kept rollouts are the seed's votes, and the test is synthesized and gated
from them as a run does; every kept rollout of the task, whatever its variant, then votes as a
search rollout would (search consensus, evaluation/refinement.py). The table keeps the
gateway's chat log, not the harness's trajectory, so a seed rollout counts as clean when the
trusted judgement passes it, and "no error marker" means no failure marker in any tool output
the model was shown.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
from scorer_agreement import KINDS, SANDBOX, VERSIONS, both_tests, quiet_share, report

from harnesspro.evaluation.scoring import grade, needs_judgement
from harnesspro.improvers.testsynth.judge import ASSISTANT, conversation, judge, message_text
from harnesspro.improvers.testsynth.offline import (
    FAILURE_MARKERS,
    SeedRollout,
    SynthTest,
    failures,
)
from harnesspro.sandbox.snapshot import loads
from harnesspro.tasks.loader import load_task, suite_dir

MEASURED = VERSIONS[1:]  # the table has no frozen test of its own
UNCLEAN = '{"type": "tool_call", "command": "x"}\n{"type": "tool_result", "output": "%s"}\n'


def marker(chat_log: str) -> bool:
    """Whether any tool output the model was shown after its first reply prints a failure."""
    talk = conversation(chat_log)
    if talk is None:
        return False
    roles = [m.get("role") for m in talk.messages]
    first = roles.index(ASSISTANT) if ASSISTANT in roles else len(roles)
    shown = [message_text(m) for m in talk.messages[first + 1 :] if m.get("role") != ASSISTANT]
    return any(mark in text for text in shown for mark in FAILURE_MARKERS)


def kept_rows(table: Path) -> pd.DataFrame:
    """The table's rows whose workspace was kept, with their chat log and snapshot."""
    folder = table.with_name(table.stem + "-trajectories")
    rows = []
    for line in table.read_text().splitlines():
        row = json.loads(line)
        base = folder / row["variant"] / f"{row['task']}-{row['attempt']}"
        space = base.with_suffix(".workspace.json")
        if row["status"] == "infra_error" or not space.is_file():
            continue
        chat = base.with_suffix(".jsonl").read_text()
        rows.append({**row, "chat": chat, "space": loads(space.read_text())})
    return pd.DataFrame(rows)


def tests_for(task_id: str, rows: pd.DataFrame, suite: str, seed: str) -> tuple[SynthTest, ...]:
    """(synthesized from the seed variant's rollouts, refined by every rollout), each gated."""
    mine = rows[rows["task"] == task_id]
    seeds = mine[mine["variant"] == seed]
    votes = [
        SeedRollout(space, "" if judge(chat, status) else UNCLEAN % FAILURE_MARKERS[0])
        for space, chat, status in zip(seeds["space"], seeds["chat"], seeds["status"], strict=True)
    ]
    voting = list(zip(mine["space"], mine["chat"], mine["status"], strict=True))
    return both_tests(load_task(suite_dir(suite) / task_id), votes, voting)


def graded(rows: pd.DataFrame, suite: str, seed: str) -> pd.DataFrame:
    """The columns scorer_agreement's report reads."""
    tests = {t: tests_for(t, rows, suite, seed) for t in sorted(set(rows["task"]))}
    out = rows.assign(task_id=rows["task"], candidate_id=rows["variant"], run="table")
    out["official_pass"] = out["official_pass"].astype(int)
    for i, version in enumerate(MEASURED):
        by_task = {t: pair[i] for t, pair in tests.items()}
        out[f"pass:{version}"] = [
            None if by_task[t].unscorable else grade(by_task[t], space, SANDBOX)
            for t, space in zip(out["task"], out["space"], strict=True)
        ]
        out[f"sees:{version}"] = [not needs_judgement(by_task[t]) for t in out["task"]]
    refined = {t: pair[1] for t, pair in tests.items()}
    out["kinds"] = [
        ",".join(sorted({c.kind for c in failures(refined[t], space, SANDBOX)}))
        for t, space in zip(out["task"], out["space"], strict=True)
    ]
    out["abstains"] = [
        ",".join(k for k in KINDS if not any(c.kind == k for c in refined[t].checks))
        for t in out["task"]
    ]
    out["judged"] = [judge(c, s) for c, s in zip(out["chat"], out["status"], strict=True)]
    out["marker"] = [marker(c) for c in out["chat"]]
    return out


def main(argv: list[str]) -> int:
    if not argv or not Path(argv[0]).is_file():
        print(__doc__)
        return 2
    table = Path(argv[0])
    seed = argv[1] if len(argv) > 1 else "base"
    rows = kept_rows(table)
    if rows.empty or seed not in set(rows["variant"]):
        print(f"{table}: no kept workspace of variant {seed!r} (rows since 2026-12-07 keep them)")
        return 2
    suite = argv[2] if len(argv) > 2 else "easy"
    out = graded(rows, suite, seed)
    print(f"{len(out)} rollouts of {out['task'].nunique()} tasks, seed variant {seed!r}")
    print("\n".join(list(report(out, MEASURED))[1:]))
    print(quiet_share(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
