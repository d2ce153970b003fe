"""Disclosure by split, enforced in code: the one place improver inputs are built.

Improvers (analyzer, planner, editor, in every mode) receive only:

- train-split traces: the survivors' rollouts on coreset tasks (trajectory, frozen-test
  verdict, usage) and those tasks' instructions;
- aggregates: every candidate's coreset score and validation score (never a validation
  rollout, task id or trajectory);
- candidate code: commits of the run's harness repository and diffs between them;
- proposer memory: earlier plans with their predictions, measured coreset effects and
  verdicts (train-split figures only);
- the experience library: earlier runs' lessons for the same model and task family (their
  coreset figures only, as filed by `lessons.file_epoch`).

Nothing from the test split, no official tests or their verdicts (`official_pass`), no
reference solutions, no synthesized test code: this module never opens a task folder, the
run's `synth_tests/`, or a rollout that is not a coreset rollout.

The `llm` test synthesizer (`synthesizer_inputs`) writes the test of one coreset or validation
task and receives, for that task only: its instruction and working directory, and the seed's
G rollouts on it (trajectory, and final workspace: file list, small text files, links, modes,
git state). No verdicts of any kind, nothing of other candidates or tasks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from harnesspro.core.fsnames import shown
from harnesspro.core.metrics import on_split
from harnesspro.core.records import Candidate, Score, Trace
from harnesspro.improvers.inputs import (
    CandidateDiff,
    ImproverInputs,
    Lesson,
    SeedView,
    SynthesizerInputs,
)
from harnesspro.run.context import SEED_ID, RunContext
from harnesspro.run.lessons import read_lessons
from harnesspro.run.validation_scores import validation_scores
from harnesspro.sandbox.snapshot import Snapshot

SYNTH_FILE_CHARS = 4000  # per file shown to the synthesizer
SYNTH_WORKSPACE_CHARS = 40_000  # per seed workspace
SYNTH_TRAJECTORY_CHARS = 12_000  # per seed trajectory (its end: where the work is finished)
DIFF_CHARS = 3000  # a diff longer than this is cut: planners read what changed, not files


def train_traces(ctx: RunContext, candidate_ids: set[str]) -> list[Trace]:
    """Coreset rollouts of the given candidates, as traces (nothing else is read)."""
    coreset = set(ctx.splits.coreset)
    return [
        Trace(
            key=r.key,
            candidate_id=r.candidate_id,
            task_id=r.task_id,
            passed=r.passed is True,
            trajectory=ctx.run.trajectory(r.key),
            # None when unknown (NULL in the ledger), never 0
            output_tokens=None if r.usage is None else r.usage.output,
            n_calls=r.n_calls,
            uncached_input=None if r.usage is None else r.usage.uncached_input,
            cached_input=None if r.usage is None else r.usage.cached_input,
            status=r.status,
        )
        for r in on_split(ctx.ledger.rollout_rows(), "coreset")
        if r.candidate_id in candidate_ids and r.task_id in coreset
    ]


def _diff(ctx: RunContext, parent: Candidate, child: Candidate) -> str:
    text = str(ctx.repo.repo.git.diff("--unified=1", parent.commit, child.commit))
    return text if len(text) <= DIFF_CHARS else text[:DIFF_CHARS] + "\n[... diff cut ...]"


def candidate_diffs(
    ctx: RunContext, candidates: Mapping[str, Candidate], scores: Mapping[str, Score]
) -> tuple[CandidateDiff, ...]:
    """parent..child for every child, with its measured deltas (None when unmeasured)."""
    diffs = []
    for child in candidates.values():
        if child.parent is None or child.parent not in candidates:
            continue
        parent = candidates[child.parent]
        d_pass = d_cost = None
        if child.id in scores and parent.id in scores:
            before, after = scores[parent.id], scores[child.id]
            d_pass = round(after.pass_rate - before.pass_rate, 4)
            if before.cost_per_task:
                d_cost = round(after.cost_per_task / before.cost_per_task - 1, 4)
        diffs.append(
            CandidateDiff(
                parent.id,
                child.id,
                child.directive,
                child.mechanism,
                _diff(ctx, parent, child),
                d_pass,
                d_cost,
            )
        )
    return tuple(diffs)


def _float(value: object) -> float | None:
    return None if value is None or value != value else float(str(value))


def proposer_memory(ctx: RunContext, before_epoch: int) -> tuple[Lesson, ...]:
    """Plans of earlier epochs with their verdicts (coreset effects only)."""
    plans = ctx.ledger.plans()
    rows = plans[plans["epoch"] < before_epoch].to_dict("records")
    return tuple(
        Lesson(
            epoch=int(r["epoch"]),
            parent_id=str(r["parent_id"]),
            child_id=None if r["child_id"] is None else str(r["child_id"]),
            directive=str(r["directive"]),
            name=str(r["mechanism"]),
            kind=str(r.get("kind") or "catalog"),
            levers=tuple(json.loads(r.get("levers") or "[]")),
            change=str(r.get("change") or "")[:300],
            predicted_pass=float(r["predicted_pass"]),
            predicted_cost=float(r["predicted_cost"]),
            measured_pass=_float(r.get("measured_pass")),
            measured_cost=_float(r.get("measured_cost")),
            verdict=r.get("verdict"),
            note=str(r.get("note") or "")[:200],
        )
        for r in rows
    )


def improver_inputs(
    ctx: RunContext, epoch: int, parent_ids: Sequence[str], diffs: bool = True
) -> ImproverInputs:
    """The improvers' whole view of the run for this epoch (see the module docstring).

    `diffs=False` skips the git diffs (the catalog improver does not read them).
    """
    candidates = ctx.candidates()
    scores = ctx.scores()
    return ImproverInputs(
        epoch=epoch,
        parents=tuple(parent_ids),
        traces=tuple(train_traces(ctx, set(parent_ids))),
        instructions={t: ctx.tasks[t].instruction for t in ctx.splits.coreset if t in ctx.tasks},
        candidates=candidates,
        scores=scores,
        validation=validation_scores(ctx),
        diffs=candidate_diffs(ctx, candidates, scores) if diffs else (),
        memory=proposer_memory(ctx, epoch),
        library=read_lessons(ctx),
    )


def _tail_lines(text: str, limit: int) -> str:
    """The last whole lines of `text` within `limit` characters."""
    if len(text) <= limit:
        return text
    tail = text[-limit:]
    return tail[tail.find("\n") + 1 :]


def seed_view(snapshot: Snapshot, trajectory: str) -> SeedView:
    """A seed rollout's trajectory (its end) and final workspace, cut to the limits; a name
    that is not UTF-8 is shown with `\\xNN` escapes (`fsnames.shown`), not lone surrogates."""
    files: dict[str, str] = {}
    others: list[str] = []
    budget = SYNTH_WORKSPACE_CHARS
    for rel in sorted(snapshot.files):
        if "/.git/" in f"/{rel}":
            continue
        name = shown(rel)
        try:
            text = snapshot.files[rel].decode("utf-8")
        except UnicodeDecodeError:
            others.append(name)
            continue
        if len(text) > budget:
            others.append(name)
            continue
        files[name] = text[:SYNTH_FILE_CHARS] + (
            "\n[... cut ...]" if len(text) > SYNTH_FILE_CHARS else ""
        )
        budget -= len(files[name])
    modes = {
        shown(rel): f"{mode:o}" for rel, mode in snapshot.modes.items() if "/.git" not in f"/{rel}"
    }
    return SeedView(
        trajectory=_tail_lines(trajectory, SYNTH_TRAJECTORY_CHARS),
        files=files,
        other_files=tuple(others),
        links={shown(rel): shown(target) for rel, target in snapshot.links.items()},
        modes=modes,
        git={repo: dict(state) for repo, state in snapshot.git.items()},
    )


def synthesizer_inputs(ctx: RunContext, task_id: str) -> SynthesizerInputs:
    """The instruction of one coreset or validation task and the seed's rollouts on it."""
    if task_id not in (*ctx.splits.coreset, *ctx.splits.validation):
        raise ValueError(f"{task_id} is not a coreset or validation task")
    rows = ctx.ledger.rollouts()
    rows = rows[(rows["candidate_id"] == SEED_ID) & (rows["task_id"] == task_id)]
    keys = rows[rows["status"] != "infra_error"]["key"]
    task = ctx.tasks[task_id]
    return SynthesizerInputs(
        task_id=task_id,
        instruction=task.instruction,
        workdir=task.workdir,
        seeds=tuple(seed_view(ctx.run.workspace(k), ctx.run.trajectory(k)) for k in keys),
    )
