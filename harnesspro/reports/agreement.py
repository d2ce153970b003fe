"""How well the frozen synthesized tests agree with the official tests, on every rollout that
has both verdicts. Failure is the positive class: a synthesized test exists to catch failing
rollouts without ground truth (reference: 83.3% failure recall vs 41.7% for direct LLM
judgement)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from harnesspro.core.atomic import write_text_atomic


@dataclass(frozen=True)
class Agreement:
    """Confusion counts with failure positive, and the rates derived from them (None when a
    rate has no denominator)."""

    rollouts: int
    both_fail: int  # true positives
    synth_only_fail: int  # false positives: the synthesized test failed an official pass
    official_only_fail: int  # false negatives: a failure the synthesized test let through
    both_pass: int  # true negatives
    failure_recall: float | None
    failure_precision: float | None
    accuracy: float | None


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def agreement(synth_pass: Sequence[bool], official_pass: Sequence[bool]) -> Agreement:
    """Compare paired verdicts (True = pass) of the synthesized and the official tests."""
    if len(synth_pass) != len(official_pass):
        raise ValueError("synth_pass and official_pass must be paired (equal length)")
    pairs = list(zip(map(bool, synth_pass), map(bool, official_pass), strict=True))
    tp = sum(not s and not o for s, o in pairs)
    fp = sum(not s and o for s, o in pairs)
    fn = sum(s and not o for s, o in pairs)
    tn = sum(s and o for s, o in pairs)
    return Agreement(
        rollouts=len(pairs),
        both_fail=tp,
        synth_only_fail=fp,
        official_only_fail=fn,
        both_pass=tn,
        failure_recall=_ratio(tp, tp + fn),
        failure_precision=_ratio(tp, tp + fp),
        accuracy=_ratio(tp + tn, len(pairs)),
    )


def agreement_by_split(rollouts: pd.DataFrame) -> dict[str, Agreement]:
    """`all` plus one entry per split, over rollouts with both verdicts (infra faults out)."""
    frame = rollouts[rollouts["status"] != "infra_error"].dropna(subset=["pass", "official_pass"])
    splits = frame["split"].fillna("coreset")
    out = {"all": agreement(list(frame["pass"] == 1), list(frame["official_pass"] == 1))}
    for split in sorted(splits.unique()):
        part = frame[splits == split]
        out[str(split)] = agreement(list(part["pass"] == 1), list(part["official_pass"] == 1))
    return out


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1%}"


def describe(name: str, a: Agreement) -> str:
    """One line: the three rates and the counts behind them."""
    pct = _pct

    return (
        f"synthesized vs official tests ({name}, {a.rollouts} rollouts): failure recall "
        f"{pct(a.failure_recall)}, failure precision {pct(a.failure_precision)}, accuracy "
        f"{pct(a.accuracy)} (both fail {a.both_fail}, only synthesized fails "
        f"{a.synth_only_fail}, only official fails {a.official_only_fail}, both pass "
        f"{a.both_pass})"
    )


def write_agreement(
    folder: Path, by_split: dict[str, Agreement], more: Mapping[str, object] | None = None
) -> Path:
    """reports/agreement.json: the search verdicts' agreement per split, and `more` (the
    check kinds and quiet failures, reports/check_kinds.py)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "agreement.json"
    body = {name: asdict(a) for name, a in by_split.items()}
    text = json.dumps({"positive_class": "failure", **body, **(more or {})}, indent=2)
    write_text_atomic(path, text + "\n")
    return path


def load_lines(run_dir: Path) -> list[str]:
    """The run's agreement as printable lines (`harnesspro report`); [] before any exists."""
    path = run_dir / "reports" / "agreement.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text())
    data.pop("positive_class", None)
    kinds = data.pop("check_kinds", {})
    quiet = data.pop("quiet_failures", None)
    lines = [describe(name, Agreement(**fields)) for name, fields in data.items()]
    for kind, fields in kinds.items():
        a = Agreement(**fields["agreement"])
        if not a.rollouts:
            continue
        lines.append(
            f"  {kind} checks alone: failure recall {_pct(a.failure_recall)}, precision "
            f"{_pct(a.failure_precision)}; no check on {fields['abstains']} of "
            f"{fields['tasks']} tasks"
        )
    if quiet is not None and quiet["rollouts"]:
        q = Agreement(**quiet)
        lines.append(
            f"  official failures with no error marker: {q.both_fail} of {q.rollouts} caught "
            f"({_pct(q.failure_recall)})"
        )
    return lines
