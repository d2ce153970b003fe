"""The composer: after an epoch's children are scored, per parent, merge two siblings, pick
one, or keep the base (`evolution.composer: true`); the rule itself is composition.py.

Per parent with evaluated children of this epoch, on the children's paired verdicts:

- two or more helped, and two of them touch different levers: **merge** the best such pair
  with a git three-way merge in the run's harness repository (their common ancestor is the
  base). The merged tree is validated like any candidate (manifest, code, smoke rollout, the
  merged-in change in effect), recorded as a plan (the second sibling's change applied to the
  first), evaluated on the coreset and given a verdict against the first sibling like any
  child; a conflicting or invalid merge falls back to **pick**.
- exactly one helped (or the helpers all share levers): **pick** the best.
- none helped: **keep-base**, a legitimate outcome recorded as such, not a failure.

Outcomes go to the ledger's `compositions` table and reports/compositions.csv. They decide
which candidates the next epoch expands (`next_parents`); the operating points (lite, medium,
heavy) stay the measured front's.
"""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pandas as pd

from harnesspro.core.ledger_rows import plan_of
from harnesspro.core.records import Candidate, Plan
from harnesspro.evaluation.selection.composition import (
    Decision,
    Sibling,
    composition_table,
    decide,
    expansion,
)
from harnesspro.harness.merge import merge_yaml
from harnesspro.harness.repo import AUTHOR
from harnesspro.improvers.editor.apply import EditFn, apply_plan
from harnesspro.reports.levers import plan_levers
from harnesspro.run.context import RunContext


def _git(worktree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The run's own identity, as its commits have: a machine without a global git identity
    # (a fresh CI HOME) would otherwise refuse the merge.
    who = ["-c", f"user.name={AUTHOR.name}", "-c", f"user.email={AUTHOR.email}"]
    return subprocess.run(["git", *who, *args], cwd=worktree, capture_output=True, text=True)


def _merge_configs(worktree: Path, conflicted: list[str]) -> str:
    """Resolve git's conflicts in YAML files key by key (harness/merge.py); MergeConflict
    when a key changed on both sides, ValueError when another kind of file conflicts."""
    if not all(path.endswith((".yaml", ".yml")) for path in conflicted):
        raise ValueError(f"merge conflict in {', '.join(conflicted) or 'the trees'}")
    for path in conflicted:
        base, ours, theirs = (_git(worktree, "show", f":{n}:{path}").stdout for n in (1, 2, 3))
        (worktree / path).write_text(merge_yaml(base, ours, theirs))
        _git(worktree, "add", path)
    return f"; {', '.join(conflicted)} merged key by key"


def merge_edit(theirs: Candidate) -> EditFn:
    """An editor step that three-way merges `theirs` into the worktree (at the other sibling's
    commit); a conflict that a key-by-key merge of YAML configs cannot resolve is an edit
    failure naming it."""

    def edit(worktree: Path, plan: Plan, feedback: str) -> str:
        done = _git(worktree, "merge", "--no-commit", "--no-ff", theirs.commit)
        resolved = ""
        if done.returncode != 0:
            conflicted = _git(worktree, "diff", "--name-only", "--diff-filter=U").stdout.split()
            try:
                resolved = _merge_configs(worktree, conflicted)
            except ValueError as exc:
                _git(worktree, "merge", "--abort")
                raise ValueError(f"merge conflict: {exc}") from exc
        _git(worktree, "merge", "--quit")  # keep the merged files; the editor commits them
        return f"three-way merge of {theirs.id} ({theirs.commit[:10]}){resolved}"

    return edit


def merge_pair(ctx: RunContext, a: Sibling, b: Sibling, epoch: int) -> Candidate | str:
    """The merged candidate (a's tree plus b's change), recorded as b's plan applied to a so
    that it gets a verdict like any child; or why there is none."""
    ours, theirs = a.candidate, b.candidate
    plans = ctx.ledger.plans()
    row = plans[(plans["epoch"] == epoch) & (plans["child_id"] == theirs.id)]
    plan = plan_of(row.iloc[0].to_dict()) if len(row) else None
    if plan is None:
        return f"no plan recorded for {theirs.id}"
    merged_plan = replace(
        plan,
        parent_id=ours.id,
        rationale=f"composer: merge {ours.id} + {theirs.id}; {plan.rationale}",
    )
    existing = list(ctx.candidates().values())
    new_id = f"c{len(existing):03d}"
    sandbox = ctx.config.sandbox.backend
    edit = apply_plan(
        merged_plan, ours, ctx.repo, existing, new_id, epoch, merge_edit(theirs), sandbox
    )
    if edit.candidate is None:
        return edit.note
    if edit.new:
        ctx.ledger.add_candidate(edit.candidate)
    note = "; ".join(filter(None, [f"composer: merge of {ours.id} + {theirs.id}", edit.note]))
    ctx.ledger.record_plan(epoch, merged_plan, edit.candidate.id, note)
    return edit.candidate


def siblings_of(ctx: RunContext, epoch: int) -> dict[str, list[Sibling]]:
    """This epoch's scored children, by parent (merged candidates are not siblings)."""

    scores = ctx.scores()
    merged = set(ctx.ledger.compositions()["candidate_id"].dropna())
    found: dict[str, list[Sibling]] = {}
    candidates = ctx.candidates()
    for row in ctx.ledger.plans().to_dict("records"):
        child = row.get("child_id")
        if row["epoch"] != epoch or child is None or child not in scores or child in merged:
            continue
        if any(s.candidate.id == child for s in found.get(str(row["parent_id"]), [])):
            continue  # two plans made the same tree
        verdict = row.get("verdict") if isinstance(row.get("verdict"), str) else None
        sibling = Sibling(candidates[str(child)], scores[str(child)], tuple(plan_levers(row)),
                          verdict)  # fmt: skip
        found.setdefault(str(row["parent_id"]), []).append(sibling)
    return found


def compose(ctx: RunContext, epoch: int) -> list[Candidate]:
    """Decide per parent, make the merges, record every outcome; returns the merged
    candidates (to evaluate, then measure)."""
    if not ctx.config.evolution.composer:
        return []
    scores = ctx.scores()
    merged: list[Candidate] = []
    for parent, siblings in sorted(siblings_of(ctx, epoch).items()):
        if parent not in scores:
            continue
        decision = decide(parent, scores[parent], siblings)
        made: str | None = None
        if decision.outcome == "merge":
            a, b = (next(s for s in siblings if s.candidate.id == c) for c in decision.children)
            result = merge_pair(ctx, a, b, epoch)
            if isinstance(result, Candidate):
                made = result.id
                merged.append(result)
            else:
                decision = Decision(
                    parent, "pick", decision.children[:1], f"merge failed ({result}); picked"
                )
        ctx.ledger.record_composition(
            epoch, parent, decision.outcome, decision.children, made, decision.why
        )
        ctx.console.print(
            f"  composer {parent}: {decision.outcome} {' + '.join(decision.children)}"
            f"{f' -> {made}' if made else ''} ({decision.why})",
            markup=False,
        )
    return merged


def next_parents(ctx: RunContext, epoch: int, picks: list[str]) -> list[str]:
    """The candidates the epoch after `epoch` expands: the front's picks, each replaced by what
    the composer carries for the parent whose line it belongs to (composition.py)."""
    mine = [r for r in ctx.ledger.composition_rows() if int(r["epoch"]) == epoch]
    if not ctx.config.evolution.composer or not mine:
        return picks
    plans = ctx.ledger.plan_rows()
    parents = expansion(picks, composition_table(mine, plans), plans)
    if parents != sorted(set(picks)):
        ctx.console.print(
            f"  composer: expanding {', '.join(parents)} (the front picked {', '.join(picks)}; "
            "see reports/compositions.csv)",
            markup=False,
        )
    return parents


def write_compositions(ctx: RunContext) -> None:
    """reports/compositions.csv: every composer outcome of the run, the merged candidate's
    verdict and the candidate each outcome carries into the next epoch."""
    folder = ctx.run.reports()
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / ".compositions.csv.tmp"
    table = composition_table(ctx.ledger.composition_rows(), ctx.ledger.plan_rows())
    columns = [*ctx.ledger.compositions().columns, "merged_verdict", "carries"]
    pd.DataFrame(table, columns=columns).to_csv(temp, index=False)
    temp.replace(folder / "compositions.csv")
