"""What a finished bench leaves in its folder (OUT), read as records: a row of bench.csv per
run, the exhaustive points of bench.json, the run folders under OUT/runs. The analyses of
`harnesspro bench fronts | replicates | interim | points` start here."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harnesspro.bench.arithmetic import Point
from harnesspro.core.config_base import ConfigError

MODES = ("seed", "lite", "medium", "heavy")
RUN_NAME = re.compile(r"^(?P<variant>.+)-p(?P<profile>\d+)(?:-s(?P<seed>-?\d+))?$")
"""runs/<variant>-p<profile>[-s<run seed>] (bench/runner.py's `run_name`)."""


@dataclass(frozen=True)
class BenchRow:
    """One run of a bench (a row of bench.csv): a variant on a unit (profile, run seed)."""

    variant: str
    profile: int
    run_seed: int | None  # None: the bench ran without --run-seeds
    misleading: bool
    rollouts: int  # the search's rollouts
    normalised_hv: float
    points: Mapping[str, Point]  # seed/lite/medium/heavy -> (pass rate, cost per task)


@dataclass(frozen=True)
class RunFolder:
    """A run folder of a bench: OUT/runs/<variant>-p<profile>[-s<run seed>]."""

    path: Path
    variant: str
    profile: int
    run_seed: int | None


def existing(folder: Path, command: str) -> Path:
    """`folder` when it is one; else ConfigError, one sentence."""
    if not folder.is_dir():
        raise ConfigError(f"bench {command}: {folder}: no such folder; pass a bench's OUT.")
    return folder


def checked(folder: Path, command: str) -> Path:
    """`folder` when it holds a finished bench's bench.csv; else ConfigError, one sentence."""
    if not (existing(folder, command) / "bench.csv").is_file():
        raise ConfigError(
            f"bench {command}: {folder}: no bench.csv, so not a finished bench; pass the OUT "
            "of a `harnesspro bench` that ended."
        )
    return folder


def _number(record: Mapping[Hashable, Any], key: str, default: float = math.nan) -> float:
    value = record.get(key)
    return default if value is None or pd.isna(value) else float(value)


def read_rows(folder: Path) -> list[BenchRow]:
    """bench.csv's rows; a mode whose columns are missing is left out of `points`."""
    rows = []
    for r in pd.read_csv(folder / "bench.csv").to_dict("records"):
        seed = _number(r, "run_seed")
        points = {
            m: (_number(r, f"{m}_pass"), _number(r, f"{m}_cost"))
            for m in MODES
            if f"{m}_pass" in r and f"{m}_cost" in r
        }
        rows.append(
            BenchRow(
                variant=str(r["variant"]),
                profile=int(r["profile"]),
                run_seed=None if math.isnan(seed) else int(seed),
                misleading=bool(r.get("misleading", False)),
                rollouts=int(_number(r, "rollouts", 0)),
                normalised_hv=_number(r, "normalised_hv"),
                points=points,
            )
        )
    return rows


def exhaustive_points(folder: Path) -> dict[int, list[Point]]:
    """bench.json's exhaustive points per profile (none without `--exhaustive`)."""
    path = folder / "bench.json"
    data = json.loads(path.read_text()).get("exhaustive", {}) if path.is_file() else {}
    return {
        int(profile): [(float(v["pass_rate"]), float(v["cost_per_task"])) for v in found.values()]
        for profile, found in data.items()
    }


def run_folders(folder: Path) -> list[RunFolder]:
    """The bench's run folders, sorted by name (the exhaustive ones left out)."""
    found = []
    for path in sorted((folder / "runs").glob("*-p*")):
        match = RUN_NAME.match(path.name)
        if match is None or not path.is_dir() or path.name.startswith("exhaustive"):
            continue
        seed = match["seed"]
        found.append(
            RunFolder(
                path, match["variant"], int(match["profile"]), None if seed is None else int(seed)
            )
        )
    return found


def variants_in(rows: Sequence[BenchRow]) -> list[str]:
    """The variants in order of first appearance."""
    return list(dict.fromkeys(r.variant for r in rows))
