"""Split manifests: committed JSON naming each split's tasks with a content hash per task.

A run that uses a manifest checks every listed task against its hashes first and refuses to
start when one changed, so a split can never silently drift from what was reviewed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harnesspro.core.records import Task
from harnesspro.tasks.loader import Suite, TaskError, suite_dir, suite_parts
from harnesspro.tasks.splits import Splits

FORMAT = 1
# Bytecode caches appear when a verifier imports the tests in place; they are not task content.
IGNORED_PARTS = {"__pycache__", ".pytest_cache"}


class ManifestError(TaskError):
    """A manifest that is unreadable or no longer matches its tasks; one sentence with the fix.

    A TaskError, so every command that reports bad task folders reports it the same way."""


@dataclass(frozen=True)
class TaskHash:
    """sha256 of every file of a task folder, and one digest over them all."""

    digest: str
    files: dict[str, str] = field(repr=False)


@dataclass(frozen=True)
class Manifest:
    """Which tasks are in which split, how they were chosen, and what they contained."""

    suite: str | tuple[str, ...]
    """What the manifest was written for: `builtin`, a folder, or several folders."""
    splits: dict[str, tuple[str, ...]]
    hashes: dict[str, TaskHash]
    settings: dict[str, Any] = field(default_factory=dict)
    command: str = ""  # the command line that writes this manifest again

    @property
    def task_ids(self) -> tuple[str, ...]:
        return tuple(sorted(self.hashes))


def task_hash(folder: Path) -> TaskHash:
    """Hash every file of a task folder (sorted by relative path)."""
    files = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and not IGNORED_PARTS & set(rel.parts):
            files[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    lines = "".join(f"{digest}  {rel}\n" for rel, digest in files.items())
    return TaskHash(hashlib.sha256(lines.encode()).hexdigest(), files)


def build_manifest(
    suite: Suite,
    tasks: list[Task],
    splits: dict[str, tuple[str, ...]],
    settings: dict[str, Any],
    command: str = "",
) -> Manifest:
    """A manifest of `splits` over `tasks`, hashing each listed task's folder now."""
    by_id = {t.id: t for t in tasks}
    listed = sorted({task_id for ids in splits.values() for task_id in ids})
    hashes = {task_id: task_hash(by_id[task_id].path) for task_id in listed}
    label = suite if isinstance(suite, str) else tuple(suite)
    return Manifest(label, splits, hashes, settings, command)


def splits_dict(splits: Splits, with_coreset: bool) -> dict[str, tuple[str, ...]]:
    """Manifest splits from `make_splits`: the train pool and test, plus coreset/validation."""
    pool = tuple(sorted(splits.coreset + splits.validation))
    out = {"train": pool, "test": splits.test}
    if with_coreset:
        out |= {"coreset": splits.coreset, "validation": splits.validation}
    return out


def write_manifest(manifest: Manifest, path: Path) -> None:
    """Write the manifest as stable, reviewable JSON."""
    data = {
        "format": FORMAT,
        "suite": manifest.suite if isinstance(manifest.suite, str) else list(manifest.suite),
        "settings": manifest.settings,
        "command": manifest.command,
        "splits": {name: list(ids) for name, ids in manifest.splits.items()},
        "tasks": {
            task_id: {"sha256": h.digest, "files": h.files}
            for task_id, h in sorted(manifest.hashes.items())
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def read_manifest(path: Path) -> Manifest:
    """Read a manifest, raising ManifestError when it is missing or malformed."""
    try:
        data = json.loads(path.read_text())
        if data.get("format") != FORMAT:
            raise ManifestError(f"{path}: unknown manifest format {data.get('format')!r}.")
        hashes = {
            task_id: TaskHash(entry["sha256"], dict(entry["files"]))
            for task_id, entry in data["tasks"].items()
        }
        splits = {name: tuple(ids) for name, ids in data["splits"].items()}
        settings = dict(data.get("settings", {}))
        suite = data["suite"]
        label = tuple(map(str, suite)) if isinstance(suite, list) else str(suite)
        return Manifest(label, splits, hashes, settings, str(data.get("command", "")))
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such manifest; check the path.") from None
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise ManifestError(f"{path}: not a valid split manifest ({exc!r}); rewrite it.") from None


def verify_manifest(
    manifest: Manifest, suite_dir: Path | list[Path], source: str = "manifest"
) -> None:
    """Raise ManifestError naming the first task whose folder no longer matches its hashes."""
    roots = suite_dir if isinstance(suite_dir, list) else [suite_dir]
    rewrite = (
        f"re-run `{manifest.command}`"
        if manifest.command
        else "write a new one with `harnesspro tasks split` or `harnesspro coreset`"
    )
    for task_id, expected in sorted(manifest.hashes.items()):
        folder = next((r / task_id for r in roots if (r / task_id).is_dir()), None)
        if folder is None:
            where = " or ".join(map(str, roots))
            raise ManifestError(
                f"{source}: task '{task_id}' is missing from {where}; restore it or {rewrite}."
            )
        actual = task_hash(folder)
        if actual.digest != expected.digest:
            raise ManifestError(
                f"{source}: task '{task_id}' changed since the manifest was written "
                f"({describe_change(expected, actual)}); restore the task or {rewrite}."
            )


def describe_change(expected: TaskHash, actual: TaskHash) -> str:
    """Which files differ, e.g. `tests/test.sh modified, notes.md added`."""
    changes = [
        f"{rel} {kind}"
        for rel, kind in (
            *((r, "removed") for r in expected.files if r not in actual.files),
            *((r, "added") for r in actual.files if r not in expected.files),
            *(
                (r, "modified")
                for r in expected.files
                if r in actual.files and expected.files[r] != actual.files[r]
            ),
        )
    ]
    shown = ", ".join(sorted(changes)[:3])
    return shown + (f" and {len(changes) - 3} more" if len(changes) > 3 else "")


def manifest_splits(manifest: Manifest, source: str = "manifest") -> Splits:
    """The run's `Splits` from a coreset manifest (one written by `harnesspro coreset`)."""
    if "coreset" not in manifest.splits:
        raise ManifestError(
            f"{source}: has no coreset; write one with `harnesspro coreset --tasks SUITE`."
        )
    return Splits(
        coreset=manifest.splits["coreset"],
        validation=manifest.splits.get("validation", ()),
        test=manifest.splits.get("test", ()),
    )


def open_manifest(path: Path, suite: Suite) -> Manifest:
    """Read a manifest for `suite` and verify every listed task; what a run calls first."""
    manifest = read_manifest(path)
    written = [Path(p).resolve() for p in suite_parts(manifest.suite)]
    if written != [Path(p).resolve() for p in suite_parts(suite)]:
        raise ManifestError(
            f"{path}: written for suite '{_label(manifest.suite)}', not '{_label(suite)}'; "
            "use the matching `tasks.suite` or write a new manifest."
        )
    verify_manifest(manifest, [suite_dir(p) for p in suite_parts(suite)], str(path))
    return manifest


def _label(suite: Suite) -> str:
    return suite if isinstance(suite, str) else ", ".join(suite)
