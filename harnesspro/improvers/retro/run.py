"""Retrospective mode: learn from sessions a user already has, without new rollouts.

`harnesspro retro --sessions DIR --harness PATH --out OUT` reads the sessions under DIR
(`sessions.py` adapters), runs the analyzer over them as if they were the harness's
rollouts (grouped by task: sessions with the same first user message), lets the planner
propose one change per directive, and applies each plan to the harness in a git repository
under OUT, validated like any candidate (manifest, code, smoke rollout, the change in effect).
The roles are an improver mode's (`roles.py`): `--improver catalog` (rules analyzer, catalog
planner and edits; the default) or `--improver llm` (model calls through a search account
whose calls are metered in OUT/search.sqlite; each role falls back to the catalog with a
recorded reason). Valid candidates are written to OUT/candidates/<id>-<name>/ and everything to
OUT/retro.json. Sessions without a verdict are analysed for cost and behaviour only: their
verdict-based diagnoses (failures, unrecovered errors) are dropped.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harnesspro.core.config import RunConfig
from harnesspro.core.config_base import ConfigError
from harnesspro.core.ledger import Ledger
from harnesspro.core.records import Candidate, Diagnosis, Plan, Score
from harnesspro.harness.repo import HarnessRepo
from harnesspro.improvers.account import SearchAccount, improver_price, make_improver_upstream
from harnesspro.improvers.analyzer.rules import prevalence
from harnesspro.improvers.inputs import ImproverInputs
from harnesspro.improvers.retro.sessions import Session
from harnesspro.improvers.roles.dispatch import CatalogImprover, Improver, LLMImprover

VERDICT_KINDS = ("task_failures", "unrecovered_errors")
RETRO_ID = "retro"


@dataclass(frozen=True)
class Proposal:
    plan: Plan
    candidate: str | None
    """OUT-relative folder of the validated candidate, or None."""
    note: str


@dataclass(frozen=True)
class Retro:
    sessions: int
    with_verdict: int
    diagnoses: tuple[Diagnosis, ...]
    proposals: tuple[Proposal, ...]
    fallbacks: dict[str, str] = field(default_factory=dict)
    """Role -> why it fell back to the catalog (llm improver only)."""


def judged_only(found: Sequence[Diagnosis], sessions: Sequence[Session]) -> list[Diagnosis]:
    """Verdict-based diagnoses only for tasks whose sessions all have a verdict."""
    unjudged = {s.task_id for s in sessions if s.passed is None}
    return [d for d in found if not (d.kind in VERDICT_KINDS and d.task_id in unjudged)]


def diagnose(sessions: Sequence[Session]) -> list[Diagnosis]:
    """The rules analyzer's diagnoses of the sessions (verdict-based ones when judged)."""
    found, _ = CatalogImprover().diagnose(inputs_for(sessions, _base()))
    return judged_only(found, sessions)


def _base(commit: str = "", tree: str = "") -> Candidate:
    return Candidate(RETRO_ID, commit, tree, None, None, None, 0)


def inputs_for(sessions: Sequence[Session], base: Candidate) -> ImproverInputs:
    """What the improver roles read: the sessions as the base harness's traces and score."""
    return ImproverInputs(
        epoch=1,
        parents=(RETRO_ID,),
        traces=tuple(s.trace() for s in sessions),
        instructions={s.task_id: s.instruction for s in sessions},
        candidates={RETRO_ID: base},
        scores={RETRO_ID: session_score(sessions)},
        validation={},
        diffs=(),
    )


def session_score(sessions: Sequence[Session]) -> Score:
    """Pass rate over judged sessions and cost per session; NaN where unknown."""
    judged = [s.passed for s in sessions if s.passed is not None]
    costs = [s.cost for s in sessions]
    return Score(
        RETRO_ID,
        sum(judged) / len(judged) if judged else math.nan,
        math.nan if any(c is None for c in costs) else sum(c or 0.0 for c in costs) / len(costs),
        math.nan
        if any(s.usage is None for s in sessions)
        else sum(s.usage.total for s in sessions if s.usage) / len(sessions),
        len(sessions),
        sum(s.n_calls for s in sessions) / len(sessions),
    )


def retro(
    sessions: Sequence[Session], harness: Path, out: Path, roles: Improver | None = None
) -> Retro:
    """Analyse, plan and edit with `roles` (default: the catalog's; see the module
    docstring); writes OUT."""
    if not sessions:
        raise ConfigError(
            "no sessions found: pass --sessions a folder of chat.jsonl or mini-swe-agent "
            "trajectory files (or an --adapter for yours)."
        )
    if not (harness / "harness.toml").is_file():
        raise ConfigError(f"{harness} has no harness.toml; pass --harness a harness directory.")
    roles = roles or CatalogImprover()
    repo = HarnessRepo(out / "harness", out / "worktrees")
    base = _base(*repo.commit_seed(harness))
    inputs = inputs_for(sessions, base)
    found, fallbacks = roles.diagnose(inputs)
    diagnoses = judged_only(found, sessions)
    seen = {RETRO_ID: prevalence(diagnoses, RETRO_ID, len(sessions))}
    plans, fell_back = roles.plan(inputs, diagnoses, seen)
    fallbacks = {f"analyzer {k}": v for k, v in fallbacks.items()} | {
        f"planner {k}": v for k, v in fell_back.items()
    }
    existing = [base]
    proposals = []
    for n, plan in enumerate(plans, 1):
        edit = roles.edit(plan, base, repo, existing, f"r{n:03d}", 1)
        folder = None
        if edit.candidate is not None and edit.new:
            existing.append(edit.candidate)
            folder = f"candidates/{edit.candidate.id}-{plan.mechanism}"
            repo.export(edit.candidate.commit, out / folder)
        proposals.append(Proposal(plan, folder, edit.note))
    judged = sum(s.passed is not None for s in sessions)
    result = Retro(len(sessions), judged, tuple(diagnoses), tuple(proposals), fallbacks)
    (out / "retro.json").write_text(json.dumps(asdict(result), indent=2) + "\n")
    return result


@contextlib.contextmanager
def llm_roles(config: RunConfig, out: Path) -> Iterator[tuple[Improver, Ledger]]:
    """The llm improver on `config`'s `evolution.improver_model`, its calls metered in
    OUT/search.sqlite (the ledger it returns) and logged under OUT/search/."""
    out.mkdir(parents=True, exist_ok=True)
    improver = config.evolution.improver_model
    ledger = Ledger(out / "search.sqlite")
    account = SearchAccount(
        make_improver_upstream(improver),
        improver,
        improver_price(config),
        ledger,
        1,
        out / "search",
        config.budget.max_improver_dollars,
        config.gateway.retry_policy(),
    )
    try:
        with account:
            yield LLMImprover(account, config.sandbox.backend, config.sandbox.memory_mb), ledger
    finally:
        ledger.close()
