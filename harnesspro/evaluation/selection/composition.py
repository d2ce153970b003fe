"""The composer's rule as data (no I/O): merge, pick or keep the base per parent, decided on
the siblings' paired verdicts, and which candidate each outcome carries into the next epoch.

A sibling *gained* when its plan's paired verdict (planner/memory.py: bootstrap over tasks,
the NEGLIGIBLE band) is `helped`; `hurt`, `no effect` and `confounded` are not gains. Only a
sibling without a measured verdict (too few paired rollouts) is judged on point estimates:
more passes, or cheaper without fewer passes. Gainers are ranked by pass gain minus relative
cost change.

What an outcome *carries* forward (the candidate expanded next epoch in the parent's line):
keep-base -> the parent itself; pick -> the picked child; merge -> the merged candidate when
its own verdict (measured against the first sibling, its parent) is `helped`, else the first
sibling, which helped on its own. `expansion` applies this to the front's picks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from harnesspro.core.cost_axis import axis_of, value_on
from harnesspro.core.records import Candidate, Score

Outcome = Literal["merge", "pick", "keep-base"]
EVIDENCE = {"helped": True, "hurt": False, "no effect": False, "confounded": False}
"""A measured verdict decides whether a sibling gained."""


@dataclass(frozen=True)
class Sibling:
    """One evaluated child of the parent, with what its plan touched and its verdict."""

    candidate: Candidate
    score: Score
    levers: tuple[str, ...]
    verdict: str | None


@dataclass(frozen=True)
class Decision:
    parent_id: str
    outcome: Outcome
    children: tuple[str, ...]
    """The merged pair, the picked child, or () for keep-base."""
    why: str


def relative_cost(base: Score, child: Score) -> float:
    """Relative change of cost per task, on the most honest axis both have (dollars, else
    tokens, else model calls: harnesspro/core/cost_axis.py)."""
    axis = axis_of({"base": base, "child": child})
    before, after = value_on(base, axis), value_on(child, axis)
    return after / before - 1 if before else 0.0


def gain(base: Score, child: Score) -> float:
    """Pass gain minus relative cost change."""
    return child.pass_rate - base.pass_rate - relative_cost(base, child)


def gained(base: Score, s: Sibling) -> bool:
    """Helped by its paired verdict; unmeasured: passed more, or cheaper without passing less."""
    if s.verdict in EVIDENCE:
        return EVIDENCE[s.verdict]
    more = s.score.pass_rate > base.pass_rate
    cheaper = relative_cost(base, s.score) < 0 and s.score.pass_rate >= base.pass_rate
    return more or cheaper


def _evidence(s: Sibling) -> str:
    return f"{s.candidate.id} {s.verdict or 'unmeasured'}"


def decide(parent_id: str, base: Score, siblings: Sequence[Sibling]) -> Decision:
    """Merge, pick or keep the base for one parent (see the module docstring)."""
    ranked = sorted(
        (s for s in siblings if gained(base, s)),
        key=lambda s: (-gain(base, s.score), s.candidate.id),
    )
    pairs = [
        (a, b)
        for i, a in enumerate(ranked)
        for b in ranked[i + 1 :]
        if not set(a.levers) & set(b.levers)
    ]
    if pairs:
        a, b = max(pairs, key=lambda p: gain(base, p[0].score) + gain(base, p[1].score))
        why = f"{_evidence(a)}, {_evidence(b)}: both gained, on different levers"
        return Decision(parent_id, "merge", (a.candidate.id, b.candidate.id), why)
    if ranked:
        best = ranked[0]
        why = f"{_evidence(best)}, gain {gain(base, best.score):+.3f} (pass minus cost)"
        return Decision(parent_id, "pick", (best.candidate.id,), why)
    heard = ", ".join(_evidence(s) for s in sorted(siblings, key=lambda s: s.candidate.id))
    return Decision(parent_id, "keep-base", (), f"no child gained ({heard})")


def carried(outcome: str, parent: str, children: Sequence[str], made: str | None,
            made_verdict: str | None) -> str:  # fmt: skip
    """The candidate an outcome carries into the next epoch (see the module docstring)."""
    if outcome == "keep-base" or not children:
        return parent
    if outcome == "merge" and made and made_verdict == "helped":
        return made
    return children[0]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


Row = Mapping[str, Any]
"""A ledger row as column -> value (`Ledger.plan_rows`, `Ledger.composition_rows`)."""


def verdicts(plans: Iterable[Row]) -> dict[str, str | None]:
    """Each child's verdict, from the ledger's plans."""
    return {str(r["child_id"]): _text(r.get("verdict")) for r in plans if _text(r.get("child_id"))}


def composition_table(compositions: Iterable[Row], plans: Iterable[Row]) -> list[dict[str, Any]]:
    """The ledger's compositions plus the merged candidate's verdict and what each carries."""
    said = verdicts(plans)
    rows = []
    for r in compositions:
        made = _text(r["candidate_id"])
        verdict = said.get(made) if made else None
        children = json.loads(str(r["children"]))
        rows.append({**r, "merged_verdict": verdict,
                     "carries": carried(str(r["outcome"]), str(r["parent_id"]), children, made,
                                        verdict)})  # fmt: skip
    return rows


def judged(row: Row, plans: Iterable[Row]) -> set[str]:
    """The candidates one composition speaks for: the parent, its children of that epoch and
    the merged candidate."""
    epoch, parent = int(row["epoch"]), str(row["parent_id"])
    mine = [p for p in plans if int(p["epoch"]) == epoch and p["parent_id"] == parent]
    made = _text(row["candidate_id"])
    children = {str(p["child_id"]) for p in mine if _text(p["child_id"])}
    return {parent, *children} | ({made} if made else set())


def expansion(picks: Iterable[str], table: Iterable[Row], plans: Sequence[Row]) -> list[str]:
    """The parents to expand: each pick the composer spoke for is replaced by what that
    composition carries; other picks stay (`table` is one epoch's composition_table)."""
    carry = {cid: str(row["carries"]) for row in table for cid in judged(row, plans)}
    return sorted({carry.get(cid, cid) for cid in picks})
