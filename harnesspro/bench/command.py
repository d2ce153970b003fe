"""`harnesspro bench`: parse the options, run every variant on every profile, write and
print the report."""

from __future__ import annotations

import argparse
import json
import math
import shlex
import time
from collections.abc import Mapping
from pathlib import Path

from rich.console import Console

from harnesspro.bench import report, yardstick
from harnesspro.bench.analyses import ANALYSES
from harnesspro.bench.arithmetic import Point
from harnesspro.bench.pool import head_commit, pooled, versus
from harnesspro.bench.runner import Outcome, exhaustive_points, run_variant, variants
from harnesspro.bench.shards import run_shards
from harnesspro.bench.split import resolution
from harnesspro.bench.yardstick import Yardstick, setup_key
from harnesspro.core.config import RunConfig, load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.execution_config import RayConfig
from harnesspro.evolution.strategies import STRATEGIES
from harnesspro.execution.scheduler import ensure_ray
from harnesspro.sandbox.bubblewrap import Bubblewrap

DEFAULT_CONFIG = Path("configs/bench.yaml")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = sub.add_parser(
        "bench", help="every strategy on hidden behaviour profiles, equal budget"
    )
    bench.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    bench.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE")
    bench.add_argument("--profile-seeds", default="1,2,3,4,5", help="comma-separated ints")
    bench.add_argument(
        "--run-seeds",
        default="",
        help="comma-separated ints: run every variant once per run seed (the config's `seed`) "
        "on the same splits; each profile's figures are the means over them",
    )
    bench.add_argument(
        "--paired",
        action="store_true",
        help="the i-th run seed goes with the i-th profile (as many of each): one run seed per "
        "unit instead of every run seed on every profile",
    )
    bench.add_argument("--strategies", default=",".join(dict.fromkeys(STRATEGIES)))
    bench.add_argument("--no-racing", action="store_true", help="skip harnesspro+racing")
    bench.add_argument("--composer", action="store_true", help="also compare harnesspro+composer")
    bench.add_argument(
        "--exhaustive",
        action="store_true",
        help="add the seed, each mechanism alone and greedy stacks to the reference front",
    )
    bench.add_argument(
        "--fast",
        action="store_true",
        help="fast mode: official verdicts memoised by task and final file system "
        "(evaluation.verdict_memo = OUT/verdicts.sqlite); sound in the scripted world only",
    )
    bench.add_argument(
        "--workers",
        type=int,
        default=1,
        help="bench processes side by side, each on a share of the profiles (same OUT); "
        "the serial parts of one process's runs leave a core idle",
    )
    bench.add_argument("--out", type=Path, default=Path("runs/bench"))
    bench.add_argument(
        "action",
        nargs="?",
        choices=["pool", *ANALYSES],
        help="an analysis of bench folders (docs/benchmarks.md#commands): pool (the paired "
        "table over benches of one commit), fronts (benches on one reference front), "
        "replicates (runs of one strategy against their union), interim (the finished units "
        "of a running bench), points (where the hypervolume comes from)",
    )
    bench.add_argument(
        "folders", nargs="*", type=Path, help="an analysis's bench folders (fronts: LABEL=OUT)"
    )
    bench.add_argument(
        "--reference", default="", help="pool: normalise against these variants' fronts only"
    )
    bench.add_argument(
        "--versus",
        default="",
        help="pool: bench folders of the code before (same units): after-minus-before of each "
        "paired difference",
    )
    bench.add_argument(
        "--equivalent",
        default="",
        help="pool: commits declared equivalent (git shows no change under harnesspro/, configs/)",
    )
    bench.add_argument(
        "--default", default="", help="fronts: the variant whose paired wins are counted"
    )


def parse_seeds(text: str, option: str = "--profile-seeds", unique: bool = True) -> list[int]:
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise ConfigError(f"{option} {text!r}: give comma-separated integers.") from None
    if not seeds:
        raise ConfigError(f"{option}: give at least one integer.")
    return list(dict.fromkeys(seeds)) if unique else seeds


def unit_seeds(args: argparse.Namespace) -> dict[int, list[int | None]]:
    """Each profile's run seeds: every `--run-seeds` on every profile, or (`--paired`) the
    run seed in the profile's place; [None] (the config's seed) without `--run-seeds`."""
    profiles = parse_seeds(args.profile_seeds)
    given = args.run_seeds.strip()
    if not args.paired:
        crossed: list[int | None] = [*parse_seeds(given, "--run-seeds")] if given else [None]
        return {p: list(crossed) for p in profiles}
    runs = parse_seeds(given, "--run-seeds", unique=False) if given else []
    listed = parse_seeds(args.profile_seeds, unique=False)
    if len(listed) != len(profiles) or len(runs) != len(profiles):
        raise ConfigError(
            f"--paired: give as many --run-seeds ({len(runs)}) as --profile-seeds "
            f"({len(listed)}, {len(profiles)} distinct), one for each profile in order."
        )
    return {p: [r] for p, r in zip(profiles, runs, strict=True)}


def start_ray(ray_config: RayConfig, attempts: int = 3) -> None:
    """The embedded Ray, started up front: on a loaded machine its start-up can time out,
    which is our fault, not a strategy's, so it is retried before any run begins."""
    import ray

    for attempt in range(attempts):
        try:
            ensure_ray(ray_config)
            return
        except Exception:  # ray raises a bare Exception when its node does not come up
            ray.shutdown()
            if attempt == attempts - 1:
                raise


def profile_yardstick(
    out: Path,
    base: RunConfig,
    profile: int,
    outcomes: list[Outcome],
    singles: Mapping[str, Point],
) -> Yardstick:
    """The profile's stored yardstick under OUT/yardsticks/, extended with these runs' points
    and the exhaustive singles and greedy stacks."""
    setup = {
        "tasks": base.tasks.model_dump(mode="json"),
        "harness": base.harness.model_dump(mode="json"),
        "prices": {k: v.model_dump(mode="json") for k, v in base.prices.items()},
        "model": base.model.name,
        "attempts": base.evaluation.attempts,
    }
    new = [*report.labelled_points(outcomes), *((f"single:{n}", *pc) for n, pc in singles.items())]
    seeds = [o.points["seed"] for o in outcomes]
    return yardstick.stored(out / "yardsticks", profile, setup_key(setup), seeds, new)


def command_line(args: argparse.Namespace) -> str:
    """The command that reproduces this bench (written to OUT/command.txt)."""
    parts = ["harnesspro", "bench", "--config", str(args.config)]
    parts += ["--profile-seeds", args.profile_seeds]
    parts += ["--run-seeds", args.run_seeds] if args.run_seeds.strip() else []
    parts += ["--paired"] if args.paired else []
    parts += ["--strategies", args.strategies]
    parts += [flag for flag, on in (("--no-racing", args.no_racing), ("--composer", args.composer),
              ("--exhaustive", args.exhaustive), ("--fast", args.fast)) if on]  # fmt: skip
    parts += [f"--set={s}" for s in args.set] + ["--out", str(args.out)]
    parts += ["--workers", str(args.workers)] if args.workers != 1 else []
    return shlex.join(parts)


def timing(out: Path, seconds: float, units: int, variants: int) -> str:
    """Wall time so far, per unit, into OUT/timing.json; the line summary.md carries."""
    per_unit = seconds / units if units else math.nan
    record = {"wall_s": round(seconds), "units": units, "variants": variants,
              "per_unit_s": round(per_unit, 1)}  # fmt: skip
    (out / "timing.json").write_text(json.dumps(record) + "\n")
    return (
        f"Wall time: {seconds / 60:.1f} min for {units} units x {variants} variants "
        f"({per_unit:.0f} s per unit; resumed runs cost nothing)."
    )


def cmd_pool(args: argparse.Namespace, console: Console) -> int:
    """`harnesspro bench pool OUT [OUT ...]`."""
    missing = [f for f in args.folders if not (f / "bench.csv").is_file()]
    if not args.folders or missing:
        where = f"{missing[0]}: no bench.csv" if missing else "no bench folder given"
        raise ConfigError(f"bench pool: {where}; pass finished bench folders (their OUT).")
    reference = [v for v in args.reference.split(",") if v]
    try:
        text = pooled(args.folders, reference, [c for c in args.equivalent.split(",") if c])
    except ValueError as exc:
        raise ConfigError(f"bench pool: {exc}.") from None
    console.print(text, markup=False)
    before = [Path(f) for f in args.versus.split(",") if f]
    if before:
        missing = [f for f in before if not (f / "bench.csv").is_file()]
        if missing:
            raise ConfigError(f"bench pool --versus: {missing[0]}: no bench.csv.")
        console.print("\nAgainst " + ", ".join(map(str, before)) + ":", markup=False)
        console.print(versus(args.folders, before), markup=False)
    return 0


def cmd_bench(args: argparse.Namespace, console: Console) -> int:
    if args.action == "pool":
        return cmd_pool(args, console)
    if args.action in ANALYSES:
        return ANALYSES[args.action](args, console)
    analyses = " | ".join(["pool", *ANALYSES])
    pool_only = [("folders", args.folders, analyses), ("--reference", args.reference, "pool"),
                 ("--equivalent", args.equivalent, "pool"), ("--versus", args.versus, "pool"),
                 ("--default", args.default, "fronts")]  # fmt: skip
    stray = [(name, where) for name, value, where in pool_only if value]
    if stray:
        name, where = stray[0]
        raise ConfigError(f"{name} belongs to `harnesspro bench {where}`; remove it here.")
    out = args.out.resolve()
    fast = [f"evaluation.verdict_memo={out / 'verdicts.sqlite'}"] if args.fast else []
    base = load_config(args.config, [*args.set, *fast])
    if args.workers < 1:
        raise ConfigError(f"--workers {args.workers}: give 1 or more processes.")
    if base.model.upstream != "scripted":
        raise ConfigError(
            f"{args.config}: harnesspro bench runs the scripted world's behaviour profiles "
            "(model.upstream: scripted); measure a real model with `harnesspro calibrate`."
        )
    # None: each run keeps the config's seed, in runs/<variant>-p<profile> as before
    units = unit_seeds(args)
    seeds = list(units)
    chosen = variants(
        [s.strip() for s in args.strategies.split(",") if s.strip()],
        not args.no_racing,
        args.composer,
    )
    if base.sandbox.backend == "bubblewrap":
        Bubblewrap()  # fail before anything is written when the sandbox cannot run
    started = time.monotonic()
    several = f" x run seeds {units[seeds[0]]}" if args.run_seeds.strip() else ""
    several = " with one run seed each (--paired)" if args.paired else several
    console.print(f"bench: {len(chosen)} variants x profiles {seeds}{several} -> {out}")
    (out / "command.txt").parent.mkdir(parents=True, exist_ok=True)
    (out / "command.txt").write_text(command_line(args) + "\n")
    (out / "commit.txt").write_text(head_commit() + "\n")
    if args.workers > 1 and len(seeds) > 1:
        run_shards(shlex.split(command_line(args))[1:], units, args.workers, out, console)
        (out / "command.txt").write_text(command_line(args) + "\n")  # the children wrote theirs
    start_ray(base.ray)
    outcomes, extra, sticks = [], {}, {}
    for profile in seeds:
        mine = [
            run_variant(base, variant, profile, out, console, run_seed)
            for run_seed in units[profile]
            for variant in chosen
        ]
        outcomes += mine
        if args.exhaustive:
            extra[profile] = exhaustive_points(base, profile, out, console)
        sticks[profile] = profile_yardstick(out, base, profile, mine, extra.get(profile, {}))
        # Tables after every profile, so an interrupted bench still reports what finished;
        # the plots (seconds for many profiles) once, at the end.
        rows = report.run_rows(outcomes, {}, sticks)
        summary = report.summary(rows, seed=base.seed)
        note = resolution(max(o.test_tasks for o in outcomes), base.evaluation.attempts)
        done = len({(o.profile, o.run_seed) for o in outcomes})
        note += "\n\n" + timing(out, time.monotonic() - started, done, len(chosen))
        last = profile == seeds[-1]
        paths = report.write_outputs(out, rows, summary, extra, note, plots=last)
        console.print(f"profile {profile} done at {time.monotonic() - started:.0f} s")
    console.print(report.table(summary))
    console.print((out / "summary.md").read_text().split("\n\nPer strategy")[0], markup=False)
    console.print(
        f"wall time {time.monotonic() - started:.0f} s; wrote " + ", ".join(str(p) for p in paths)
    )
    return 0
