"""Agreement with the official tests by check kind, and on quiet failures, for one run.

For every search rollout with both verdicts (coreset and validation, no infrastructure fault,
a task with a scorable offline test), the checks of its task's current test (the refinement
where one is recorded) that its final working directory fails are grouped by kind (`seed`,
`instruction`, `search`): each kind alone is a scorer (a rollout fails when one of its checks
does), compared with the official verdict, with the number of tasks on which the kind has no
check (it abstains). The search's own verdicts are compared again on the official failures
whose trajectory printed no error marker: the failures only the files can show.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from harnesspro.evaluation.refinement import SEARCH_SPLITS
from harnesspro.evaluation.scoring import FrozenTest, checks_sandbox, load_current
from harnesspro.improvers.testsynth.check import INSTRUCTION, SEARCH, SEED
from harnesspro.improvers.testsynth.offline import FAILURE_MARKERS, SynthTest, failures
from harnesspro.reports.agreement import Agreement, agreement
from harnesspro.run.context import RunContext

KINDS = (SEED, INSTRUCTION, SEARCH)


@dataclass(frozen=True)
class KindAgreement:
    """One check kind as a scorer of its own."""

    agreement: Agreement
    tasks: int
    abstains: int
    """Scorable tasks whose test has no check of this kind."""


def shows_error(trajectory: str) -> bool:
    """Whether any tool result prints an error marker (FAILURE_MARKERS) or an error event was
    logged."""
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


def _offline(tests: Mapping[str, FrozenTest]) -> dict[str, SynthTest]:
    return {
        t: test for t, test in tests.items() if isinstance(test, SynthTest) and not test.unscorable
    }


def check_kinds(ctx: RunContext) -> tuple[dict[str, KindAgreement], Agreement]:
    """Each kind's agreement, and the search verdicts' agreement on quiet failures."""
    tests = _offline(load_current(ctx))
    rows = ctx.ledger.rollouts()
    rows = rows[
        rows["split"].fillna("coreset").isin(SEARCH_SPLITS)
        & (rows["status"] != "infra_error")
        & rows["task_id"].isin(list(tests))
    ].dropna(subset=["pass", "official_pass"])
    sandbox = checks_sandbox(ctx)
    failed_kinds = [
        {c.kind for c in failures(tests[t], ctx.run.workspace(k), sandbox)}
        for k, t in zip(rows["key"], rows["task_id"], strict=True)
    ]
    official = list(rows["official_pass"] == 1)
    kinds = {}
    for kind in KINDS:
        mine = [kind not in found for found in failed_kinds]
        used = {t for t in set(rows["task_id"]) if any(c.kind == kind for c in tests[t].checks)}
        tasks = set(rows["task_id"])
        kinds[kind] = KindAgreement(agreement(mine, official), len(tasks), len(tasks - used))
    quiet = [
        not o and not shows_error(ctx.run.trajectory(k))
        for k, o in zip(rows["key"], official, strict=True)
    ]
    search = [p == 1 for p, q in zip(rows["pass"], quiet, strict=True) if q]
    return kinds, agreement(search, [False] * len(search))


def kinds_body(kinds: Mapping[str, KindAgreement], quiet: Agreement) -> dict[str, object]:
    """The part of reports/agreement.json these figures fill."""
    return {
        "check_kinds": {k: asdict(v) for k, v in kinds.items()},
        "quiet_failures": asdict(quiet),
    }
