"""Plan scopes: the llm planner's answer and catalog mechanisms carry invariant/domain, and
the ledger keeps it."""

from __future__ import annotations

from pathlib import Path

from harnesspro.core.ledger_rows import plan_of
from harnesspro.core.records import Plan
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.improvers.planner.llm import PlannerReply, to_plan
from tests.conftest import llm_run


def test_llm_answer_scope_reaches_the_ledger(tmp_path: Path) -> None:
    answer = {
        "directive": "balanced", "name": "csv-quoting-tips", "levers": ["prompt"],
        "scope": "domain", "change": "tell the agent how CSV quoting works", "rationale": "r",
        "predicted_pass": 0.05, "predicted_cost": 0.0,
    }  # fmt: skip
    plan = to_plan("c000", PlannerReply.model_validate({"plans": [answer]}).plans[0])
    assert plan.scope == "domain"
    unscoped = {k: v for k, v in answer.items() if k != "scope"}
    assert to_plan("c000", PlannerReply.model_validate({"plans": [unscoped]}).plans[0]).scope == (
        "invariant"
    )
    ctx = llm_run(tmp_path)
    ctx.ledger.record_plan(1, plan, None)
    assert plan_of(ctx.ledger.plans().to_dict("records")[0]).scope == "domain"


def test_catalog_mechanisms_have_a_scope() -> None:
    scopes = {m.name: m.scope for m in CATALOG.values()}
    assert scopes["profile_routing"] == "domain" and scopes["concise_prompt"] == "invariant"
    assert Plan("c000", "balanced", "x", "", 0.0, 0.0).scope == "invariant"  # the default
