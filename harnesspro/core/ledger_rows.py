"""Ledger rows to and from the records: the rollouts and plans tables' values, the token columns."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from harnesspro.core.records import Plan, RolloutResult, RolloutSpec, Usage


def usage_row(u: Usage | None) -> tuple[int | None, ...]:
    """The five token columns; all NULL when the usage is unknown (never 0)."""
    if u is None:
        return (None,) * 5
    return (u.uncached_input, u.cached_input, u.cache_write, u.output, u.reasoning)


def rollout_row(
    spec: RolloutSpec, result: RolloutResult, artifacts: str, split: str
) -> tuple[Any, ...]:
    """The rollouts table's values (in ROLLOUT_COLUMNS order) for one finished rollout; the
    verdict column is set later, when the frozen tests score it."""
    official = None if result.official_pass is None else int(result.official_pass)
    return (
        spec.key,
        spec.candidate_id,
        spec.task_id,
        spec.attempt,
        spec.epoch,
        result.status,
        None,
        official,
        *usage_row(result.usage),
        result.cost,
        result.latency_s,
        result.n_calls,
        artifacts,
        time.time(),
        result.reason,
        split,
        # One line on the official verdict (why it failed), for `eval` and the dashboard.
        result.verifier.reason if result.verifier else None,
    )


def plan_row(
    epoch: int, plan: Plan, child_id: str | None, note: str
) -> tuple[str, tuple[Any, ...]]:
    """The statement and values that store `plan` (its child id and note) for `epoch`."""
    row = {
        "epoch": epoch, "parent_id": plan.parent_id, "directive": plan.directive,
        "mechanism": plan.mechanism, "rationale": plan.rationale,
        "predicted_pass": plan.predicted_pass, "predicted_cost": plan.predicted_cost,
        "child_id": child_id, "note": note, "kind": plan.kind,
        "levers": json.dumps(list(plan.levers)), "change": plan.change,
        "files": json.dumps(list(plan.files)),
        "expected_flips": json.dumps(list(plan.expected_flips)), "scope": plan.scope,
        "predicted_interval": json.dumps(
            {"pass": list(plan.pass_interval), "cost": list(plan.cost_interval)}
        ),
        "finding": plan.finding,
    }  # fmt: skip
    names = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    return f"INSERT OR REPLACE INTO plans ({names}) VALUES ({marks})", tuple(row.values())


def plan_of(row: Mapping[Any, Any]) -> Plan:
    """The plan of one ledger row."""
    interval = json.loads(row.get("predicted_interval") or "{}")
    return Plan(
        str(row["parent_id"]),
        row["directive"],
        str(row["mechanism"]),
        str(row["rationale"]),
        float(row["predicted_pass"]),
        float(row["predicted_cost"]),
        kind=row.get("kind") or "catalog",
        levers=tuple(json.loads(row.get("levers") or "[]")),
        change=str(row.get("change") or ""),
        files=tuple(json.loads(row.get("files") or "[]")),
        expected_flips=tuple(json.loads(row.get("expected_flips") or "[]")),
        scope="domain" if row.get("scope") == "domain" else "invariant",
        pass_interval=tuple(interval.get("pass") or ()),
        cost_interval=tuple(interval.get("cost") or ()),
        finding=str(row.get("finding") or ""),
    )
