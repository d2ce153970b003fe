"""Everything one run's stages share, opened once by the driver."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rich.console import Console

from harnesspro.core.config import RunConfig
from harnesspro.core.config_base import ConfigError
from harnesspro.core.ledger import Ledger
from harnesspro.core.metrics import Shortfall, candidate_scores, covering, on_split, shortfalls
from harnesspro.core.model_config import Price
from harnesspro.core.progress import SILENT, Progress
from harnesspro.core.records import Candidate, RolloutRow, Score, Task
from harnesspro.core.search_config import DEFAULT_CORESET_SIZE
from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE, ProfileError
from harnesspro.execution.gateway.prices import lookup_price
from harnesspro.execution.worlds import Profile, resolve_world
from harnesspro.harness.repo import HarnessRepo
from harnesspro.improvers.account import improver_price
from harnesspro.run.folder import RunFolder
from harnesspro.tasks.keys import keyed_hashes, task_digest
from harnesspro.tasks.loader import TaskError, load_suite
from harnesspro.tasks.manifest import manifest_splits, open_manifest
from harnesspro.tasks.runtime import unrunnable_reason
from harnesspro.tasks.splits import Splits, make_splits
from harnesspro.tasks.toolenv import cache_root

SEED_ID = "c000"


def seed_template() -> Path:
    """The seed harness shipped as package data."""
    return Path(str(resources.files("harnesspro.harness") / "seed"))


def model_price(config: RunConfig) -> Price | None:
    """The target model's price; None (cost unknown) only when the config allows it."""
    try:
        return lookup_price(config.model.name, config.prices)
    except ConfigError:
        if config.model.allow_unpriced:
            return None
        raise


_CHECKED: dict[tuple[str, str, str, str], str | None] = {}
"""Each task's check in this process, by its content, the cache and the PATH: a bench opens
hundreds of runs on the same suite, and the check lays every task out (~0.6 s for 40)."""


def checked_reason(task: Task) -> str | None:
    """`unrunnable_reason`, once per task content, cache folder and PATH in this process."""
    key = (task.id, task_digest(task), str(cache_root()), os.environ.get("PATH", ""))
    if key not in _CHECKED:
        _CHECKED[key] = unrunnable_reason(task)
    return _CHECKED[key]


def runnable_tasks(tasks: list[Task]) -> tuple[dict[str, Task], tuple[str, ...]]:
    """The tasks this machine can run, and one line naming each other one with its reason."""
    kept = {}
    skipped = []
    for task in tasks:
        reason = checked_reason(task)
        if reason:
            skipped.append(f"skipping {reason}")
        else:
            kept[task.id] = task
    return kept, tuple(skipped)


@dataclass(frozen=True)
class TaskChoice:
    """The suite's tasks this machine can run, a line naming each one left out, and the
    splits drawn from them (drawn once per command: the estimate and the run share them)."""

    tasks: dict[str, Task]
    skipped: tuple[str, ...]
    splits: Splits


def choose_tasks(config: RunConfig) -> TaskChoice:
    """Load the suite, keep what runs here, and draw (or read) the splits."""
    tasks, skipped = runnable_tasks(included(config, load_suite(config.tasks.suite)))
    return TaskChoice(tasks, skipped, choose_splits(config, tasks, skipped))


def included(config: RunConfig, tasks: list[Task]) -> list[Task]:
    """The suite's tasks that `tasks.include` names (all of them when it is unset)."""
    wanted = config.tasks.include
    if wanted is None:
        return tasks
    if not wanted:
        raise ConfigError("tasks.include is an empty list; name some task ids or drop the key.")
    if config.tasks.manifest is not None:
        raise ConfigError(
            f"tasks.include is set but tasks.manifest {config.tasks.manifest} fixes the tasks; "
            "drop one of the two."
        )
    known = {task.id for task in tasks}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise ConfigError(
            f"tasks.include names '{unknown[0]}', which tasks.suite {config.tasks.suite} does "
            "not have; fix the id or drop it from the list."
        )
    return [task for task in tasks if task.id in set(wanted)]


def check_ledger_kept(ledger: Ledger, run: RunFolder) -> None:
    """An empty ledger next to saved rollouts was lost or replaced: resuming on it would run,
    and bill, every one of those rollouts again."""
    saved = run.saved_rollouts()
    if saved and not ledger.candidates():
        ledger.close()
        raise ConfigError(
            f"{run.ledger} is empty but {run.root / 'rollouts'} holds {saved} rollouts' "
            "artifacts; restore the ledger from a copy, or pass a new --run-dir (resuming "
            "here would run and bill them again)."
        )


def choose_splits(config: RunConfig, tasks: dict[str, Task], skipped: tuple[str, ...]) -> Splits:
    """The manifest's splits (checked against the config and what can run here), or new ones
    drawn from the runnable tasks."""
    if config.tasks.manifest is not None:
        manifest = open_manifest(config.tasks.manifest, config.tasks.suite)
        splits = manifest_splits(manifest, str(config.tasks.manifest))
        check_coreset_size(config, splits, config.tasks.manifest)
        check_split_settings(config, manifest.settings, config.tasks.manifest)
    else:
        splits = make_splits(
            list(tasks.values()),
            config.tasks.test_fraction,
            config.tasks.split_seed,
            config.coreset.size or DEFAULT_CORESET_SIZE,
        )
    missing = [t for t in (*splits.coreset, *splits.validation, *splits.test) if t not in tasks]
    if missing:
        why = next((s for s in skipped if f"'{missing[0]}'" in s), "it is not in the suite")
        raise TaskError(
            f"{config.tasks.manifest}: lists task '{missing[0]}', which cannot run here "
            f"({why.removeprefix('skipping ').rstrip('.')}); write a new manifest without it."
        )
    if not splits.coreset:
        raise ConfigError(
            f"tasks.suite {config.tasks.suite}: no task to evolve on ({len(tasks)} loadable "
            "tasks); point it at a folder of task folders."
        )
    return splits


def check_coreset_size(config: RunConfig, splits: Splits, manifest: Path) -> None:
    """A coreset size that disagrees with the manifest's coreset would be silently ignored."""
    size = config.coreset.size
    if size is not None and size != len(splits.coreset):
        raise ConfigError(
            f"coreset.size is {size} but the manifest {manifest} fixes a coreset of "
            f"{len(splits.coreset)} tasks; drop coreset.size, set it to {len(splits.coreset)}, "
            f"or write a new manifest with `harnesspro coreset --size {size}`."
        )


# Split keys a manifest fixes, and the name its `settings` record each one under.
MANIFEST_SETTINGS = {"test_fraction": "test_fraction", "split_seed": "seed"}


def check_split_settings(config: RunConfig, settings: dict[str, object], manifest: Path) -> None:
    """An explicitly set tasks.test_fraction / tasks.split_seed that the manifest's splits
    override would be silently ignored; one that matches what it was written with is fine."""
    for key, recorded in MANIFEST_SETTINGS.items():
        if key not in config.tasks.model_fields_set:
            continue
        value = getattr(config.tasks, key)
        if recorded in settings and settings[recorded] == value:
            continue
        written = (
            f"was written with {recorded} {settings[recorded]}"
            if recorded in settings
            else "records no such setting"
        )
        raise ConfigError(
            f"tasks.{key} is {value} but the manifest {manifest} fixes the splits and {written}; "
            f"drop tasks.{key} or write a new manifest with `harnesspro coreset`."
        )


@dataclass(frozen=True)
class RunContext:
    config: RunConfig
    run: RunFolder
    ledger: Ledger
    repo: HarnessRepo
    tasks: dict[str, Task]
    splits: Splits
    price: Price | None
    console: Console
    behaviour: Profile = DEFAULT_PROFILE
    """The scripted policy's profile (trusted side: shipped to the gateway, nowhere else)."""
    task_hashes: dict[str, str] | None = None
    """Content hash per task, part of every rollout key (None: a ledger keyed before that)."""
    skipped: tuple[str, ...] = ()
    """One line per task of the suite this machine cannot run or grade (left out)."""
    progress: Progress = SILENT
    """Where rollout batches report progress (the CLI shows a bar; nothing else prints)."""
    model_url: str | None = None
    """The base URL of the llama.cpp server this run started (`run/local_model.py`)."""

    @classmethod
    def open(
        cls,
        config: RunConfig,
        run: RunFolder,
        console: Console,
        progress: Progress = SILENT,
        chosen: TaskChoice | None = None,
    ) -> RunContext:
        """Validate what can be validated, then create or reopen the run folder (`chosen`:
        the config's tasks and splits when the caller has drawn them already)."""
        price = model_price(config)
        try:
            behaviour = resolve_world(config.model.behaviour)
        except ProfileError as exc:
            raise ConfigError(str(exc)) from None
        if "llm" in (config.evolution.improver, config.evolution.synthesizer):
            improver_price(config)  # an unpriced improver model is refused before anything
        chosen = chosen or choose_tasks(config)
        tasks, skipped, splits = chosen.tasks, chosen.skipped, chosen.splits
        run.open(config)
        ledger = Ledger(run.ledger)
        check_ledger_kept(ledger, run)
        refreshed = ledger.meta("splits")  # a coreset refresh (refresh.py) replaced them
        if refreshed:
            splits = Splits(**{k: tuple(v) for k, v in json.loads(refreshed).items()})
        run.write_splits(splits)
        repo = HarnessRepo(run.harness, run.worktrees)
        repo.recover()  # we hold the run folder's lock: any git lock file is a crash's
        hashes = keyed_hashes(ledger, tasks)
        return cls(
            config, run, ledger, repo, tasks, splits, price, console, behaviour, hashes, skipped,
            progress,
        )  # fmt: skip

    def candidates(self) -> dict[str, Candidate]:
        return {c.id: c for c in self.ledger.candidates()}

    def scoring_rollouts(self) -> list[RolloutRow]:
        """The ledger's rollouts; after a coreset refresh only those of candidates covering
        the whole current coreset, so scores are never mixed across task sets."""
        rollouts = self.ledger.rollout_rows()
        return (
            covering(rollouts, self.splits.coreset) if self.ledger.meta("refreshes") else rollouts
        )

    def scores(self) -> dict[str, Score]:
        """Train-split (coreset) scores of every complete candidate, by the frozen tests:
        a candidate a budget cap cut short, or with an infrastructure error in place of a
        rollout, is never compared (see `incomplete`)."""
        scores = candidate_scores(self.scoring_rollouts(), self.splits.coreset)
        left_out = set(self.incomplete())
        return {cid: s for cid, s in scores.items() if cid not in left_out}

    def shortfalls(self) -> dict[str, Shortfall]:
        """Candidates (the seed included) missing a scored coreset task x attempt: cut short
        by a budget cap, or left with an infrastructure error where a rollout should be."""
        coreset = on_split(self.ledger.rollout_rows(), "coreset")
        attempts = range(self.config.evolution.rollouts_per_task)
        ids = [c.id for c in self.ledger.candidates()]
        return shortfalls(coreset, ids, self.splits.coreset, attempts)

    def incomplete(self) -> list[str]:
        """Candidates (not the seed, the reference) missing a scored coreset task x attempt:
        never compared. The seed is always compared; `shortfalls` says what it misses."""
        return sorted(cid for cid in self.shortfalls() if cid != SEED_ID)

    def seed(self) -> Candidate:
        """The seed candidate, committed to the run's harness repository once."""
        commit, tree = self.repo.commit_seed(self.config.harness.seed or seed_template())
        if SEED_ID not in self.candidates():
            self.ledger.add_candidate(Candidate(SEED_ID, commit, tree, None, None, None, 0))
        return self.candidates()[SEED_ID]
