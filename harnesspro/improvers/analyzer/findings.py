"""The analyzer's findings: one candidate's diagnoses gathered by kind over its tasks.

A diagnosis is one kind of problem on one task, seen in `count` of the task's G rollouts. A
finding is that kind over all the candidate's tasks: the share of its rollouts that show it,
the tasks where every attempt shows it (a property of the harness, not noise), its measured
impact (the diagnoses' contrasts of rollouts with and without it, weighted by how many show
it) and the first evidence. The planner aims its changes at findings; the loop's surrogate
takes its prior means from them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harnesspro.core.records import Diagnosis


@dataclass(frozen=True)
class Finding:
    """One kind of problem in one candidate's rollouts, over its tasks."""

    candidate_id: str
    kind: str
    share: float
    """Of the candidate's train rollouts, the share showing it (at most 1)."""
    tasks: tuple[str, ...]
    every_attempt: tuple[str, ...]
    """The tasks where all G rollouts show it."""
    effect_pass: float
    """Measured: pass rate of the rollouts showing it minus that of those without."""
    effect_cost: float
    """Measured: their relative size minus 1."""
    evidence: str

    def describe(self) -> str:
        """One line: kind, where, how often, the measured impact."""
        every = f", every attempt on {len(self.every_attempt)}" if self.every_attempt else ""
        return (
            f"{self.kind} in {self.candidate_id}: {self.share:.0%} of rollouts, "
            f"{len(self.tasks)} task(s){every}; measured impact pass {self.effect_pass:+.2f}, "
            f"size {self.effect_cost:+.0%}"
        )


def _weighted(diagnoses: Sequence[Diagnosis], value: str) -> float:
    total = sum(d.count for d in diagnoses)
    return sum(getattr(d, value) * d.count for d in diagnoses) / total if total else 0.0


def findings_of(
    diagnoses: Iterable[Diagnosis], candidate_id: str, n_rollouts: int
) -> list[Finding]:
    """The candidate's findings, the most widespread first (ties by kind)."""
    by_kind: dict[str, list[Diagnosis]] = {}
    for d in diagnoses:
        if d.candidate_id == candidate_id:
            by_kind.setdefault(d.kind, []).append(d)
    found = [
        Finding(
            candidate_id,
            kind,
            min(1.0, sum(d.count for d in group) / n_rollouts) if n_rollouts else 0.0,
            tuple(sorted({d.task_id for d in group})),
            tuple(sorted({d.task_id for d in group if d.count >= d.of > 0})),
            round(_weighted(group, "effect_pass"), 4),
            round(_weighted(group, "effect_cost"), 4),
            next((d.evidence for d in group if d.evidence), ""),
        )
        for kind, group in by_kind.items()
    ]
    return sorted(found, key=lambda f: (-f.share, f.kind))


def answered(addresses: Iterable[str], findings: Sequence[Finding]) -> Finding | None:
    """The most widespread of `findings` whose kind is one of `addresses`, or None."""
    kinds = set(addresses)
    return next((f for f in findings if f.kind in kinds and f.share > 0), None)


def shares(findings: Iterable[Finding]) -> dict[str, float]:
    """Kind -> share of rollouts (the planner's prevalence)."""
    return {f.kind: f.share for f in findings}
