"""The run folder: paths, the resolved config, rollout artifacts and frozen tests on disk."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from harnesspro.core.atomic import write_text_atomic
from harnesspro.core.config import RunConfig, dump_config, same_config
from harnesspro.core.config_base import ConfigError
from harnesspro.core.records import RolloutResult, VerifierEvidence
from harnesspro.sandbox.snapshot import Snapshot
from harnesspro.sandbox.snapshot import load as load_snapshot
from harnesspro.sandbox.snapshot import save as save_snapshot
from harnesspro.tasks.splits import Splits

RAY_JOB_ENV = "RAY_JOB_CONFIG_JSON_ENV_VAR"  # set by Ray for a submitted job's entrypoint


def runs_root() -> Path:
    """`runs/` in the current directory; inside a Ray job (`ray job submit`), whose current
    directory is Ray's temporary copy of --working-dir, `~/harnesspro/runs` on the driver's
    node, so the run outlives the job and a resubmitted job finds it."""
    if os.environ.get(RAY_JOB_ENV):
        return Path.home() / "harnesspro" / "runs"
    return Path("runs")


def default_run_dir(config: RunConfig) -> Path:
    """<runs root>/<name>-<hash of the resolved config>: the same command finds the same
    folder."""
    digest = hashlib.sha256(dump_config(config).encode()).hexdigest()[:8]
    return runs_root() / f"{config.name}-{digest}"


# Locks this process holds, by run folder: the descriptor must stay open to keep the lock.
_HELD: dict[Path, int] = {}


class RunLocked(ConfigError):
    """Another process holds the run folder."""


def lock_folder(root: Path) -> None:
    """Take the run folder's exclusive lock for the life of this process (again: no-op).

    flock, not a PID file: the kernel drops the lock when the holder dies, even by kill -9,
    so a crashed run never blocks its own resume.
    """
    if root in _HELD:
        return
    fd = os.open(root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        if exc.errno not in (errno.EAGAIN, errno.EACCES):
            raise
        raise RunLocked(
            f"{root} is in use by another harnesspro process (PID {holder}); wait for it to "
            "finish, or pass another --run-dir."
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _HELD[root] = fd


Phase = Literal["rollouts", "improve", "git", "selection", "reports", "held-out", "done"]
"""What a run is doing: target-model rollouts (coreset, validation), diagnosing and
planning, git work (candidate edits and commits, verdict notes, merges), selection, writing
reports, the held-out evaluation, or finished."""


@dataclass(frozen=True)
class RunFolder:
    root: Path

    @property
    def ledger(self) -> Path:
        return self.root / "ledger.sqlite"

    @property
    def harness(self) -> Path:
        return self.root / "harness"

    @property
    def worktrees(self) -> Path:
        return self.root / "worktrees"

    def reports(self, epoch: int | None = None) -> Path:
        return self.root / "reports" / ("" if epoch is None else f"epoch-{epoch}")

    def rollout_dir(self, key: str) -> Path:
        return self.root / "rollouts" / key

    def saved_rollouts(self) -> int:
        """How many rollouts have artifacts in the folder."""
        folder = self.root / "rollouts"
        return sum(1 for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else 0

    def synth_test(self, task_id: str) -> Path:
        return self.root / "synth_tests" / f"{task_id}.json"

    def refined_test(self, task_id: str, sha256: str) -> Path:
        """One refinement of a task's test, named by its hash: a new one never overwrites the
        one the ledger still records."""
        return self.root / "synth_tests" / "refined" / f"{task_id}-{sha256[:16]}.json"

    def open(self, config: RunConfig) -> None:
        """Create the folder and lock it, or check that an existing one holds the same config."""
        path = self.root / "config.yaml"
        text = dump_config(config)
        if self.root.exists() and not self.root.is_dir():
            raise ConfigError(f"{self.root}: is a file, not a run folder; pass another --run-dir.")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            lock_folder(self.root)
        except OSError as exc:
            raise ConfigError(
                f"{self.root}: cannot create or write the run folder ({exc.strerror}); "
                "pass a writable --run-dir."
            ) from None
        if path.exists():
            if not same_config(path.read_text(), config):
                raise ConfigError(
                    f"{self.root} holds a run with a different config; pass a new --run-dir."
                )
            return
        write_text_atomic(path, text)

    def mark_phase(self, phase: Phase) -> None:
        """Write `phase`: the step the run is in (for watchers such as
        scripts/crash_equivalence.py, which kills runs in every phase)."""
        write_text_atomic(self.root / "phase", f"{phase}\n")

    def write_splits(self, splits: Splits) -> None:
        """splits.json: the coreset, validation and test task ids of this run."""
        text = json.dumps(asdict(splits), indent=2) + "\n"
        write_text_atomic(self.root / "splits.json", text)

    def save_rollout(self, result: RolloutResult) -> str:
        """Write a rollout's artifacts; returns the folder relative to the run."""
        folder = self.rollout_dir(result.key)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "trajectory.jsonl").write_text(result.trajectory)
        (folder / "gateway.jsonl").write_text(result.gateway_log)
        (folder / "chat.jsonl").write_text(result.chat_log)
        (folder / "stderr.txt").write_text(result.detail)
        save_snapshot(folder, result.workspace)
        if result.verifier is not None:
            (folder / "verifier.json").write_text(json.dumps(asdict(result.verifier), indent=2))
        return str(folder.relative_to(self.root))

    def verifier(self, key: str) -> VerifierEvidence | None:
        """The official verifier's evidence for a rollout (verdict, one-line reason, output
        tail, exit status, reward files), or None when the verifier did not run."""
        path = self.rollout_dir(key) / "verifier.json"
        if not path.is_file():
            return None
        return VerifierEvidence(**json.loads(path.read_text()))

    def trajectory(self, key: str) -> str:
        path = self.rollout_dir(key) / "trajectory.jsonl"
        return path.read_text() if path.exists() else ""

    def chat_log(self, key: str) -> str:
        """The rollout's gateway chat log ('' for rollouts recorded before chat logs)."""
        path = self.rollout_dir(key) / "chat.jsonl"
        return path.read_text() if path.exists() else ""

    def workspace(self, key: str) -> Snapshot:
        """A rollout's final working directory: files, links, modes and git state."""
        return load_snapshot(self.rollout_dir(key))
