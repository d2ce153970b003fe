"""`harnesspro bench fronts LABEL=OUT ...`: several benches on the same units scored on one
reference front.

Each bench's variants are renamed `<variant>@<LABEL>` (an empty LABEL, `=OUT` or plain `OUT`,
keeps the names). Every profile's yardstick (bench/yardstick.py) is then built from all these
variants' test-split points (plus any exhaustive points in their bench.json), its reference
cost twice the seed's; the summary table is the one `harnesspro bench` prints, with paired
wins of the default variant (`harnesspro@<first LABEL>` unless `--default` names another),
then its mean paired difference from each other variant over the units, with its interval.
For configurations benched apart (one bench per value of a config key, say).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harnesspro.bench.arithmetic import Point
from harnesspro.bench.folders import BenchRow, checked, exhaustive_points, read_rows
from harnesspro.bench.paired import paired_frame, paired_markdown
from harnesspro.bench.report import DEFAULT, markdown, run_rows, summary
from harnesspro.bench.runner import Outcome


@dataclass(frozen=True)
class LabelledBench:
    """A bench folder and the label its variants take (`variant@label`; "" keeps them)."""

    label: str
    folder: Path


def labelled(text: str) -> LabelledBench:
    """`LABEL=OUT`, `=OUT` or `OUT`; the folder checked to be a finished bench."""
    label, given, out = text.partition("=")
    if not given:
        label, out = "", text
    return LabelledBench(label, checked(Path(out), "fronts"))


def outcomes(rows: Sequence[BenchRow], label: str) -> list[Outcome]:
    """The runs as outcomes (what the bench's own report reads), variants renamed."""
    return [
        Outcome(
            f"{r.variant}@{label}" if label else r.variant,
            r.profile,
            r.misleading,
            dict(r.points),
            r.rollouts,
            "",
            r.run_seed,
        )
        for r in rows
    ]


def default_of(benches: Sequence[LabelledBench], chosen: str = "") -> str:
    """The variant whose paired wins are counted: `chosen`, else the first bench's default."""
    first = benches[0].label
    return chosen or (f"{DEFAULT}@{first}" if first else DEFAULT)


def fronts(benches: Sequence[LabelledBench], default: str) -> str:
    """The summary table, the paired table and the normalised HV per unit, in Markdown."""
    found: list[Outcome] = []
    extra: dict[int, list[Point]] = {}
    for bench in benches:
        found += outcomes(read_rows(bench.folder), bench.label)
        for profile, points in exhaustive_points(bench.folder).items():
            extra.setdefault(profile, []).extend(points)
    if default not in {o.variant for o in found}:
        raise ValueError(f"--default {default}: no such variant in these benches")
    return _tables(found, extra, default)


def _tables(found: Sequence[Outcome], extra: Mapping[int, Sequence[Point]], default: str) -> str:
    rows = run_rows(found, extra)
    units = ["profile", "run_seed"] if "run_seed" in rows else ["profile"]
    wide = rows.pivot_table(
        index=units, columns="variant", values="normalised_hv", aggfunc="first", sort=False
    )
    return "\n\n".join(
        [
            markdown(summary(rows, default_variant=default)),
            paired_markdown(paired_frame(rows, default), default),
            "Per unit (normalised HV):\n\n" + wide.round(3).to_string(),
        ]
    )
