"""`harnesspro bench pool`: the paired table over the units of several finished benches of one
commit (each bench's bench.csv; units are (profile, run seed), so benches on other profiles or
run seeds add units), then each variant's mean normalised hypervolume over the same units, and
the mean of the best any one variant reached on each unit. A unit's reference front is the
union of the variants' points, so that mean is what a variant would score by matching, on
every unit, the best of those benched beside it.

Every bench folder records the commit it ran (OUT/commit.txt, `-dirty` when the package or
the configs had uncommitted changes). Benches of different commits pool only when declared
equivalent (`--equivalent C1,C2`), and only when git shows no change between them under
harnesspro/ and configs/ (the check is run and quoted). `--reference V1,V2` recomputes every
normalised hypervolume against each unit's front of the named variants' points alone. Beside
the bench's own figure (normalised hypervolume at twice the seed's cost) it reports the same
at 1.5x and 3x, and the best-single-point score: the hypervolume of the seed and the one
operating point that gives the most, for a user who deploys one point.
"""

from __future__ import annotations

import math
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from harnesspro.bench.arithmetic import Interval, Point, area, bootstrap_interval, reference_front
from harnesspro.bench.paired import paired_frame, paired_markdown, unit_figures
from harnesspro.bench.report import DEFAULT
from harnesspro.bench.yardstick import REF_COST_MULTIPLE

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
CODE = ("harnesspro", "configs")
"""What decides a bench's figures: two commits that differ elsewhere (docs) are equivalent."""


def head_commit(root: Path = PACKAGE_ROOT) -> str:
    """The checkout's commit, `-dirty` when the code or configs have uncommitted changes;
    `unrecorded` outside a git checkout."""

    def git(*argv: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(root), *argv], capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short=12", "HEAD")
    if not commit:
        return "unrecorded"
    return commit + ("-dirty" if git("status", "--porcelain", "--", *CODE) else "")


def bench_rows(folder: Path) -> pd.DataFrame:
    """A bench's bench.csv; a bench without run seeds ran each unit at the config's seed
    (run seed -1 here)."""
    rows = pd.read_csv(folder / "bench.csv")
    if "run_seed" not in rows:
        rows["run_seed"] = -1
    return rows


def commit_of(folder: Path) -> str:
    path = folder / "commit.txt"
    return path.read_text().strip() if path.is_file() else "unrecorded"


def same_code(a: str, b: str, root: Path = PACKAGE_ROOT) -> bool:
    """Whether git shows no change between two commits under harnesspro/ and configs/."""
    if "dirty" in a + b or "unrecorded" in (a, b):
        return False
    argv = ["git", "-C", str(root), "diff", "--quiet", a, b, "--", *CODE]
    return subprocess.run(argv, capture_output=True, check=False).returncode == 0


def commits_line(folders: Sequence[Path], equivalent: Sequence[str]) -> str:
    """A line per bench (folder, commit, units); raises ValueError when the benches' commits
    differ and are not declared and shown equivalent."""
    found = {f: commit_of(f) for f in folders}
    distinct = sorted(set(found.values()))
    if len(distinct) > 1:
        undeclared = [c for c in distinct if c not in equivalent]
        if undeclared:
            raise ValueError(
                f"these benches ran different commits ({', '.join(distinct)}); pool one "
                "commit's benches, or declare them with --equivalent " + ",".join(distinct)
            )
        first = distinct[0]
        unlike = [c for c in distinct[1:] if not same_code(first, c)]
        if unlike:
            raise ValueError(
                f"--equivalent: git diff {first} {unlike[0]} -- harnesspro configs is not "
                "empty (or a commit is dirty or unknown), so their figures may differ"
            )
    lines = [f"Pool of {len(folders)} benches, commit {' = '.join(distinct)}:"]
    if len(distinct) > 1:
        lines.append(f"(git diff --quiet {distinct[0]} ... -- harnesspro configs: no change)")
    for folder, commit in found.items():
        units = bench_rows(folder)[["profile", "run_seed"]].drop_duplicates()
        lines.append(f"- {folder}: {len(units)} units, commit {commit}")
    return "\n".join(lines)


BEST = "best of the variants, per unit"
MODES = ("seed", "lite", "medium", "heavy")


def points(row: pd.Series) -> list[Point]:
    return [(float(row[f"{m}_pass"]), float(row[f"{m}_cost"])) for m in MODES]


def normalised(
    rows: pd.DataFrame,
    reference: Sequence[str],
    multiple: float = REF_COST_MULTIPLE,
    single: bool = False,
) -> list[float]:
    """Each row's hypervolume over that of its unit's front of the `reference` variants'
    points, at `multiple` times the seed's cost; `single`: of the seed and the row's best one
    operating point only (the most a user deploying one point gets)."""
    out = [math.nan] * len(rows)
    where = {index: n for n, index in enumerate(rows.index)}
    for _, unit in rows.groupby(["profile", "run_seed"]):
        ref_cost = multiple * float(unit["seed_cost"].iloc[0])
        mine = unit[unit["variant"].isin(reference)]
        whole = area(reference_front([points(r) for _, r in mine.iterrows()]), ref_cost)
        for i, row in unit.iterrows():
            seed, *chosen = points(row)
            own = (
                max(area([seed, point], ref_cost) for point in chosen)
                if single
                else area([seed, *chosen], ref_cost)
            )
            out[where[i]] = own / whole if whole > 0 else math.nan
    return out


def against(rows: pd.DataFrame, reference: list[str]) -> pd.DataFrame:
    """The rows with normalised_hv recomputed against each unit's front of the `reference`
    variants' points."""
    return rows.assign(normalised_hv=normalised(rows, reference))


MULTIPLES = (1.5, 2.0, 3.0)


def other_figures(rows: pd.DataFrame, reference: Sequence[str]) -> pd.DataFrame:
    """The rows with normalised hypervolume at 1.5x, 2x and 3x the seed's cost, and the
    best-single-point score at 2x, each against the `reference` variants' fronts."""
    columns = {f"hv_at_{m:g}x": normalised(rows, reference, m) for m in MULTIPLES}
    columns["best_single_point"] = normalised(rows, reference, REF_COST_MULTIPLE, single=True)
    return rows.assign(**columns)


def pooled(
    folders: list[Path], reference: list[str] | None = None, equivalent: Sequence[str] = ()
) -> str:
    """The pooled paired table and levels, headed by the commit(s) and a line per bench."""
    head = commits_line(folders, equivalent)
    rows = pd.concat([bench_rows(f) for f in folders], ignore_index=True)
    if reference:
        missing = set(reference) - set(rows["variant"])
        if missing:
            raise ValueError(f"--reference names {', '.join(sorted(missing))}, not benched here")
        rows = against(rows, reference)
    units = rows[["profile", "run_seed"]].astype(str).agg("/".join, axis=1)
    if (units + rows["variant"]).duplicated().any():
        raise ValueError("a unit appears in two of these benches: pool benches on other units")
    table = paired_markdown(paired_frame(rows, DEFAULT), DEFAULT) + "\n\n" + levels(rows)
    if not {f"{m}_{axis}" for m in MODES for axis in ("pass", "cost")} <= set(rows):
        return "\n\n".join([head, table, "(no operating points in bench.csv: one reference)"])
    figures = other_figures(rows, reference or list(dict.fromkeys(rows["variant"])))
    more = [paired_frame(figures, DEFAULT, f"hv_at_{m:g}x") for m in MULTIPLES]
    more.append(paired_frame(figures, DEFAULT, "best_single_point"))
    others = paired_markdown(pd.concat(more, ignore_index=True), DEFAULT)
    return "\n\n".join([head, table, "At other reference costs, and one point only:", others])


def level_rows(rows: pd.DataFrame) -> dict[str, Interval]:
    """Mean normalised hypervolume [90% interval] per variant over the units, and of each
    unit's best variant."""
    table = rows.pivot_table(index=["profile", "run_seed"], columns="variant",
                             values="normalised_hv", aggfunc="first")  # fmt: skip
    out = {str(v): bootstrap_interval(list(table[v].dropna())) for v in table.columns}
    out[BEST] = bootstrap_interval(list(table.max(axis=1, skipna=True)))
    return out


def levels(rows: pd.DataFrame) -> str:
    lines = ["| variant | units | mean normalised HV [90% interval] |", "|---|---|---|"]
    for name, i in level_rows(rows).items():
        lines.append(f"| {name} | {i.n} | {i.mean:.3f} [{i.low:.3f}, {i.high:.3f}] |")
    return "\n".join(lines)


def unit_differences(rows: pd.DataFrame, other: str, column: str) -> dict[object, float]:
    """Per unit, the default's figure minus `other`'s."""
    mine, theirs = unit_figures(rows, DEFAULT, column), unit_figures(rows, other, column)
    return {u: mine[u] - theirs[u] for u in mine.keys() & theirs.keys()}


def versus(after: Sequence[Path], before: Sequence[Path], column: str = "normalised_hv") -> str:
    """Two versions of the code on the same units: for each variant benched in both, the mean
    over common units of (default minus it, after) minus (default minus it, before), with its
    90% interval (units resampled)."""
    new = pd.concat([bench_rows(f) for f in after], ignore_index=True)
    old = pd.concat([bench_rows(f) for f in before], ignore_index=True)
    lines = [
        "| after - before | units | mean [90% interval] | wins/ties/losses |",
        "|---|---|---|---|",
    ]
    for other in dict.fromkeys(new["variant"]):
        if other == DEFAULT or other not in set(old["variant"]):
            continue
        a, b = unit_differences(new, str(other), column), unit_differences(old, str(other), column)
        change = [a[u] - b[u] for u in sorted(a.keys() & b.keys(), key=str)]
        i = bootstrap_interval(change)
        tally = (
            sum(c > 0 for c in change),
            sum(c == 0 for c in change),
            sum(c < 0 for c in change),
        )
        lines.append(
            f"| {DEFAULT} - {other} ({column}) | {i.n} | {i.mean:+.3f} [{i.low:+.3f}, "
            f"{i.high:+.3f}] | {'/'.join(map(str, tally))} |"
        )
    return "\n".join(lines)
