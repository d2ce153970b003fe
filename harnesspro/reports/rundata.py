"""One run's ledger tables and report files, read once: what the dashboard draws from."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harnesspro.core.config import RunConfig, load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.ledger import Ledger
from harnesspro.run.operating_points import RunNotFound


@dataclass(frozen=True)
class RunData:
    """A snapshot of one run folder (tables as the ledger returns them)."""

    root: Path
    rollouts: pd.DataFrame
    candidates: pd.DataFrame  # id, commit, parent, directive, mechanism, epoch
    selections: pd.DataFrame
    intervals: pd.DataFrame
    plans: pd.DataFrame
    epochs: pd.DataFrame
    search_calls: pd.DataFrame
    meta: dict[str, str]
    coreset: tuple[str, ...]
    config: RunConfig | None
    final: dict[str, Any] | None
    """reports/final.json (the held-out evaluation), None before it ran."""
    compositions: pd.DataFrame = field(default_factory=pd.DataFrame)
    """The composer's outcomes (empty when it is off)."""
    shrunk: pd.DataFrame = field(default_factory=pd.DataFrame)
    """reports/shrunk.csv: the last selection's shrunk estimates beside the raw ones (empty
    when the strategy chooses on raw estimates)."""

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def confidence(self) -> float:
        return self.config.evaluation.confidence if self.config else 0.9


META_KEYS = ("status", "stopped", "hypervolume_ref_cost")


def _config(root: Path) -> RunConfig | None:
    try:
        return load_config(root / "config.yaml", [])
    except (ConfigError, OSError):
        return None  # an older or edited config: the dashboard shows what it can without it


def _json(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text()) if path.is_file() else None


def _csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path) if path.is_file() else pd.DataFrame()


def load_run(root: Path) -> RunData:
    """Read a run folder; RunNotFound when it has no ledger."""
    if not (root / "ledger.sqlite").is_file():
        raise RunNotFound(f"{root}: not a run folder (no ledger.sqlite); pass runs/<run-id>.")
    ledger = Ledger(root / "ledger.sqlite")
    try:
        candidates = pd.DataFrame(
            [c.__dict__ for c in ledger.candidates()],
            columns=["id", "commit", "tree", "parent", "directive", "mechanism", "epoch"],
        )
        meta = {k: v for k in META_KEYS if (v := ledger.meta(k)) is not None}
        tables = (
            ledger.rollouts(),
            candidates,
            ledger.selections(),
            ledger.intervals(),
            ledger.plans(),
            ledger.finished_epochs(),
            ledger.search_calls(),
        )
        compositions = ledger.compositions()
    finally:
        ledger.close()
    splits = _json(root / "splits.json") or {}
    return RunData(
        root,
        *tables,
        meta=meta,
        coreset=tuple(splits.get("coreset", [])),
        config=_config(root),
        final=_json(root / "reports" / "final.json"),
        compositions=compositions,
        shrunk=_csv(root / "reports" / "shrunk.csv"),
    )
