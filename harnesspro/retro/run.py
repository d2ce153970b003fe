"""Retrospective mode: learn from sessions a user already has, without new rollouts.

`harnesspro retro --sessions DIR --harness PATH --out OUT` reads the sessions under DIR
(`sessions.py` adapters), runs the rules analyzer over them as if they were the harness's
rollouts (grouped by task: sessions with the same first user message), lets the catalog
planner propose one change per directive, and applies each plan to the harness in a git
repository under OUT, validated like any candidate (manifest, code, smoke rollout, the change
in effect). Valid candidates are written to OUT/candidates/<id>-<name>/ and everything to
OUT/retro.json. Sessions without a verdict are analysed for cost and behaviour only: their
verdict-based diagnoses (failures, unrecovered errors) are dropped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from harnesspro.analyzer.rules import analyze, prevalence
from harnesspro.config import ConfigError
from harnesspro.editor.apply import apply_plan
from harnesspro.harness.repo import HarnessRepo
from harnesspro.planner.catalog import plan_for
from harnesspro.records import Candidate, Diagnosis, Plan, Score
from harnesspro.retro.sessions import Session

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


def diagnose(sessions: Sequence[Session]) -> list[Diagnosis]:
    """Analyzer diagnoses; verdict-based ones only for tasks whose sessions all have one."""
    found = analyze([s.trace() for s in sessions])
    unjudged = {s.task_id for s in sessions if s.passed is None}
    return [d for d in found if not (d.kind in VERDICT_KINDS and d.task_id in unjudged)]


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


def retro(sessions: Sequence[Session], harness: Path, out: Path) -> Retro:
    """Analyse, plan and edit (see the module docstring); writes OUT."""
    if not sessions:
        raise ConfigError(
            "no sessions found: pass --sessions a folder of chat.jsonl or mini-swe-agent "
            "trajectory files (or an --adapter for yours)."
        )
    if not (harness / "harness.toml").is_file():
        raise ConfigError(f"{harness} has no harness.toml; pass --harness a harness directory.")
    repo = HarnessRepo(out / "harness", out / "worktrees")
    commit, tree = repo.commit_seed(harness)
    base = Candidate(RETRO_ID, commit, tree, None, None, None, 0)
    diagnoses = diagnose(sessions)
    seen = prevalence(diagnoses, RETRO_ID, len(sessions))
    plans = plan_for(base, {RETRO_ID: base}, seen, {RETRO_ID: session_score(sessions)})
    existing = [base]
    proposals = []
    for n, plan in enumerate(plans, 1):
        edit = apply_plan(plan, base, repo, existing, f"r{n:03d}", 1)
        folder = None
        if edit.candidate is not None and edit.new:
            existing.append(edit.candidate)
            folder = f"candidates/{edit.candidate.id}-{plan.mechanism}"
            repo.export(edit.candidate.commit, out / folder)
        proposals.append(Proposal(plan, folder, edit.note))
    judged = sum(s.passed is not None for s in sessions)
    result = Retro(len(sessions), judged, tuple(diagnoses), tuple(proposals))
    (out / "retro.json").write_text(json.dumps(asdict(result), indent=2) + "\n")
    return result
