"""How a rollout ended: the two errors that are not the task's failure (ours, the
harness's), the status and reason of a harness run, and its cost (unknown stays unknown)."""

from __future__ import annotations

import json
from pathlib import Path

from harnesspro.core.records import RolloutStatus
from harnesspro.execution.gateway.server import BUDGET_STATUS, Gateway
from harnesspro.sandbox.contract import SandboxResult
from harnesspro.sandbox.untrusted import read_regular, tree_size

OUT_DIR_CAP = 50_000_000
RESULT_CAP = 10_000_000


class InfraError(Exception):
    """Our side failed before the harness could run (e.g. installing its requirements)."""


class HarnessError(Exception):
    """The harness broke the contract; the message is the one-line reason recorded."""


def classify(
    run: SandboxResult, out_dir: Path, gateway: Gateway, calls_pending: int = 0
) -> tuple[RolloutStatus, str]:
    """Status and a one-line reason. Only an upstream that kept failing is infrastructure:
    everything else that happens inside the harness's own run (a call it held open at its own
    time limit included) is the harness's.

    `calls_pending`: model calls still unanswered when the harness run ended.
    """
    if any(call.status == 502 for call in gateway.calls):
        return "infra_error", "the model upstream kept failing after retries (see gateway.jsonl)"
    if run.timed_out:
        # Waiting on a slow call is the harness's choice: its rollout's time is its own.
        pending = " while a model call was still unanswered" if calls_pending else ""
        return "timeout", f"{run.reason}{pending}"
    if run.reason:
        return "harness_error", run.reason
    if run.exit_code != 0:
        last = (run.stderr.strip().splitlines() or [""])[-1][:200]
        return "harness_error", f"exited with status {run.exit_code}: {last}".rstrip(": ")
    if tree_size(out_dir) > OUT_DIR_CAP:
        return "harness_error", f"wrote more than {OUT_DIR_CAP:,} bytes to HARNESSPRO_OUT"
    try:
        json.loads(read_regular(out_dir / "result.json", RESULT_CAP) or b"")
    except ValueError:
        return "harness_error", "finished without writing a valid result.json (a regular file)"
    if any(call.status == BUDGET_STATUS for call in gateway.calls):
        return "budget_exhausted", "the gateway refused a call: the rollout's budget was spent"
    return "ok", ""


def total_cost(gateway: Gateway) -> float | None:
    """Dollars of all calls, or None when the model is unpriced or any call's spend is
    unknown (an unreadable answer, a broken stream, a call cut off): never 0 for unknown."""
    if gateway.price is None or any(c.cost is None for c in gateway.calls):
        return None
    return sum(call.cost or 0.0 for call in gateway.calls)


def blame(status: RolloutStatus, reason: str, why: str) -> tuple[RolloutStatus, str]:
    """The harness's failure `why`, unless the rollout already ended in a failure (kept)."""
    if status in ("ok", "budget_exhausted"):
        return "harness_error", why[:300]
    return status, reason
