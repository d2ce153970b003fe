"""A calibration table on a real model: harness variants (the seed, catalog mechanisms alone,
in pairs and stacks, and free-form changes) run on tasks x attempts with independent draws,
one JSON line per rollout, appended as each finishes so an interrupted table resumes.

A plan (YAML) names the variants and the tasks:

    tasks: [count_csv_rows, ...]         # folders of `suite`
    suite: harnesspro/tasks/easy
    attempts: 3
    base: [fenced_tools]                 # mechanisms every variant starts from but `seed`
    variants:
      - {name: seed, seed: true}         # the seed exactly as shipped
      - {name: base}
      - {name: concise_prompt, mechanisms: [concise_prompt]}
      - {name: nudge, overlay: changes/nudge, set: {hooks.on_submit: [{use: "nudge:first"}]}}
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, model_validator

from harnesspro.core.config_base import ConfigError, Strict
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.harness.mechanisms.edits import CONFIG_FILE


class Variant(Strict):
    """One harness of the table."""

    name: str
    seed: bool = False
    """The seed as shipped (no base mechanisms)."""
    mechanisms: list[str] = Field(default_factory=list)
    """Catalog mechanisms applied after the base, in order."""
    overlay: str | None = None
    """A folder (relative to the plan) whose files are copied over the harness."""
    set: dict[str, Any] = Field(default_factory=dict)
    """harness.yaml keys (dotted paths) set after everything else."""
    kind: str = "catalog"
    """What the row measures: seed, base, single, pair, stack or free-form."""


class Draw(Strict):
    """Random catalog stacks, for fitting a model over the catalog's bits: `count` stacks of
    `smallest`..`largest` mechanisms on distinct levers (the base's levers left out), drawn
    with `random.Random(seed)`, named draw-01, draw-02, ... (kind `drawn`)."""

    count: int = Field(ge=1, le=500)
    seed: int
    smallest: int = Field(1, ge=1)
    largest: int = Field(8, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> Draw:
        if self.smallest > self.largest:
            raise ValueError("draw: smallest is above largest; swap them")
        return self


class Plan(Strict):
    """What a calibration table measures."""

    suite: str
    tasks: list[str]
    attempts: int = Field(3, ge=1, le=50)
    base: list[str] = Field(default_factory=list)
    variants: list[Variant] = Field(default_factory=list)
    draw: Draw | None = None
    """Drawn stacks appended to `variants`."""
    parallel: int = Field(2, ge=1, le=16)
    """Rollouts at once (the local server queues their calls; bash and grading overlap)."""


def drawn(draw: Draw, base: list[str]) -> list[Variant]:
    """The plan's drawn stacks: levers shuffled, one mechanism drawn on each of the first k."""
    rng = random.Random(draw.seed)
    taken = {CATALOG[m].lever for m in base}
    by_lever: dict[str, list[str]] = {}
    for name in sorted(CATALOG):
        if CATALOG[name].lever not in taken:
            by_lever.setdefault(CATALOG[name].lever, []).append(name)
    levers = sorted(by_lever)
    largest = min(draw.largest, len(levers))
    variants = []
    for index in range(draw.count):
        size = rng.randint(min(draw.smallest, largest), largest)
        chosen = [rng.choice(by_lever[lever]) for lever in rng.sample(levers, size)]
        variants.append(Variant(name=f"draw-{index + 1:02d}", mechanisms=chosen, kind="drawn"))
    return variants


def load_plan(path: Path) -> Plan:
    """The plan at `path`, checked: every mechanism is in the catalog, every task exists."""
    try:
        plan = Plan.model_validate(yaml.safe_load(path.read_text()))
    except (OSError, yaml.YAMLError, ValueError) as exc:
        raise ConfigError(f"{path}: not a calibration plan ({exc}); fix it.") from None
    unknown = [m for m in plan.base if m not in CATALOG]
    if unknown:
        raise ConfigError(f"{path}: base: unknown mechanism {unknown[0]}.")
    for variant in plan.variants:
        unknown = [m for m in variant.mechanisms if m not in CATALOG]
        if unknown:
            raise ConfigError(f"{path}: variant {variant.name}: unknown mechanism {unknown[0]}.")
    if plan.draw is not None:
        plan = plan.model_copy(update={"variants": plan.variants + drawn(plan.draw, plan.base)})
    return plan


def set_key(config: dict[str, Any], dotted: str, value: Any) -> None:
    """Set `a.b.c` in a nested mapping, creating the levels it lacks."""
    *parents, last = dotted.split(".")
    node = config
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value


def build_variant(seed: Path, plan: Plan, variant: Variant, plan_dir: Path, out: Path) -> Path:
    """The variant's harness folder under `out` (rebuilt from the seed each time)."""
    target = out / variant.name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(seed, target, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ([] if variant.seed else plan.base) + variant.mechanisms:
        CATALOG[name].apply(target)
    if variant.overlay:
        shutil.copytree(plan_dir / variant.overlay, target, dirs_exist_ok=True)
    if variant.set:
        config = yaml.safe_load((target / CONFIG_FILE).read_text())
        for dotted, value in variant.set.items():
            set_key(config, dotted, value)
        (target / CONFIG_FILE).write_text(yaml.safe_dump(config, sort_keys=False))
    return target


def harness_digest(folder: Path) -> str:
    """A short hash of a harness folder's files (names and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(
        p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def changed_variants(rows: list[dict[str, Any]], digests: dict[str, str]) -> list[str]:
    """Variants whose rows were measured on other files than they are built from now."""
    return sorted(
        {r["variant"] for r in rows
         if r.get("harness") and r["variant"] in digests and r["harness"] != digests[r["variant"]]}
    )  # fmt: skip


def row_key(variant: str, task: str, attempt: int) -> str:
    return f"{variant}|{task}|{attempt}"


def done_keys(table: Path) -> set[str]:
    """Rows already measured (a line cut off by a crash, or an infrastructure fault, is run
    again on resume)."""
    return {
        row_key(r["variant"], r["task"], r["attempt"])
        for r in read_rows(table)
        if r.get("status") != "infra_error"
    }


def read_rows(table: Path) -> list[dict[str, Any]]:
    """The table's complete rows (a line a crash cut short is left out)."""
    rows = []
    if table.is_file():
        for line in table.read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return rows


def schedule(plan: Plan) -> Iterator[tuple[Variant, str, int]]:
    """Attempt by attempt, so a table cut short still has every variant on every task."""
    for attempt in range(plan.attempts):
        for variant in plan.variants:
            for task in plan.tasks:
                yield variant, task, attempt


Runner = Callable[[Path, str, int], dict[str, Any]]
"""Runs one rollout of a harness folder on a task (by id) as attempt N: the row's fields."""


def run_table(plan: Plan, harnesses: dict[str, Path], table: Path, run: Runner) -> int:
    """Run every missing row of the plan, appending each as it finishes; rows written."""
    done = done_keys(table)
    digests = {name: harness_digest(folder) for name, folder in harnesses.items()}
    changed = changed_variants(read_rows(table), digests)
    if changed:
        raise ConfigError(
            f"{table}: variant {changed[0]} is built from other files than its rows were "
            "measured on (the seed or the plan changed); write the table to a new --out."
        )
    if table.is_file() and not table.read_bytes().endswith(b"\n"):
        with table.open("a") as sink:  # a line a crash cut short stays a line of its own
            sink.write("\n")
    todo = [(v, t, a) for v, t, a in schedule(plan) if row_key(v.name, t, a) not in done]
    lock = threading.Lock()

    def one(item: tuple[Variant, str, int]) -> None:
        variant, task, attempt = item
        row = run(harnesses[variant.name], task, attempt)
        row = {"variant": variant.name, "kind": variant.kind, "task": task, "attempt": attempt,
               "harness": digests[variant.name], **row}  # fmt: skip
        with lock, table.open("a") as sink:
            sink.write(json.dumps(row) + "\n")

    with ThreadPoolExecutor(plan.parallel) as pool:
        list(pool.map(one, todo))
    return len(todo)
