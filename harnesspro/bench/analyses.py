"""`harnesspro bench fronts | replicates | interim | points`: the analyses of finished (or, for
interim, running) bench folders. Each checks its folders, computes in its own module and
prints Markdown; a folder that is missing or not a bench's is one sentence and exit 2."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from rich.console import Console

from harnesspro.bench.candidates import candidates_markdown, run_candidates
from harnesspro.bench.folders import checked, existing, read_rows, run_folders
from harnesspro.bench.fronts import default_of, fronts, labelled
from harnesspro.bench.interim import interim, interim_markdown
from harnesspro.bench.points import point_shares, points_markdown
from harnesspro.bench.replicates import replicate_figures, replicates_markdown
from harnesspro.bench.report import DEFAULT
from harnesspro.bench.survivors import run_survivors, survivors_line
from harnesspro.core.config_base import ConfigError

Analysis = Callable[[argparse.Namespace, Console], int]


def _folders(args: argparse.Namespace, at_least: int = 1, at_most: int | None = None) -> None:
    n = len(args.folders)
    if n < at_least or (at_most is not None and n > at_most):
        many = "one bench folder" if at_most == 1 else "bench folders"
        raise ConfigError(f"bench {args.action}: give {many} (the OUT of `harnesspro bench`).")


def cmd_fronts(args: argparse.Namespace, console: Console) -> int:
    """`harnesspro bench fronts LABEL=OUT ... [--default VARIANT]`."""
    _folders(args)
    benches = [labelled(str(f)) for f in args.folders]
    try:
        text = fronts(benches, default_of(benches, args.default))
    except ValueError as exc:
        raise ConfigError(f"bench fronts: {exc}.") from None
    console.print(text, markup=False)
    return 0


def cmd_replicates(args: argparse.Namespace, console: Console) -> int:
    """`harnesspro bench replicates OUT ...`."""
    _folders(args)
    rows = [r for f in args.folders for r in read_rows(checked(f, "replicates"))]
    try:
        figures = replicate_figures(rows)
    except ValueError as exc:
        raise ConfigError(f"bench replicates: {exc}.") from None
    console.print(replicates_markdown(figures), markup=False)
    return 0


def cmd_interim(args: argparse.Namespace, console: Console) -> int:
    """`harnesspro bench interim OUT`: a running bench needs no bench.csv yet."""
    _folders(args, at_most=1)
    out = existing(args.folders[0], "interim")
    if not (out / "command.txt").is_file():
        raise ConfigError(
            f"bench interim: {out}: no command.txt, so not a bench folder; pass the OUT of a "
            "running or stopped `harnesspro bench`."
        )
    console.print(interim_markdown(interim(out)), markup=False)
    return 0


def cmd_points(args: argparse.Namespace, console: Console) -> int:
    """`harnesspro bench points OUT`: the operating points, then (when the run folders are
    there) the candidates behind them and the default strategy's survivors."""
    _folders(args, at_most=1)
    out = checked(args.folders[0], "points")
    console.print(points_markdown(point_shares(read_rows(out))), markup=False)
    runs = run_folders(out)
    if not runs:
        console.print(f"\n({out}/runs holds no run folders: no candidates or survivors.)")
        return 0
    found = [run_candidates(r) for r in runs if (r.path / "ledger.sqlite").is_file()]
    done = [c for c in found if c is not None]
    left = f" (left out {len(runs) - len(done)} runs without test rollouts)"
    console.print("\nCandidates" + (left if len(done) < len(runs) else "") + ":\n", markup=False)
    console.print(candidates_markdown(done), markup=False)
    mine = [r for r in runs if r.variant == DEFAULT]
    ended = [r for r in mine if (r.path / "reports" / "shrunk.csv").is_file()]
    if ended:
        console.print("\n" + survivors_line([run_survivors(r) for r in ended]), markup=False)
    return 0


ANALYSES: dict[str, Analysis] = {
    "fronts": cmd_fronts,
    "replicates": cmd_replicates,
    "interim": cmd_interim,
    "points": cmd_points,
}
"""The `harnesspro bench` actions that read bench folders, by name."""
