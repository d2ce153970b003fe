"""Test synthesis without ground truth, and the frozen-test scorer.

The offline heuristic writes one test per task from the instruction and the seed harness's G
rollouts only: every working-directory path the instruction names must end up with the
content the seed rollouts agreed on, or at least exist when they did not agree. Only *clean*
rollouts vote when there are any: those whose trajectory shows no failed command that was
never retried (a retry = a later command with the same arguments). Official tests and
reference solutions are never read here.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import tarfile
import zipfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

PATH_RE = re.compile(r"`(/[^`\s]+)`")
FAILURE_MARKERS = ("command not found", "Traceback (most recent call last)", "syntax error")


@dataclass(frozen=True)
class SeedRollout:
    """What the synthesizer may read of one seed rollout."""

    workspace: Mapping[str, bytes]
    trajectory: str


def _arguments(command: str) -> str:
    first_line = command.strip().splitlines()[0] if command.strip() else ""
    return first_line.partition(" ")[2]


def _failed(event: Mapping[str, object]) -> bool:
    return any(marker in str(event.get("output")) for marker in FAILURE_MARKERS)


def is_clean(trajectory: str) -> bool:
    """No failed command was left without a retry (a later command with the same arguments)."""
    events = [json.loads(line) for line in trajectory.splitlines() if line.strip()]
    commands: list[str] = []
    failed: list[int] = []
    for event in events:
        if event.get("type") == "tool_call":
            commands.append(str(event.get("command") or ""))
        elif event.get("type") == "tool_result" and commands and _failed(event):
            failed.append(len(commands) - 1)
    return all(
        any(_arguments(later) == _arguments(commands[i]) for later in commands[i + 1 :])
        for i in failed
    )


@dataclass(frozen=True)
class Check:
    path: str
    kind: str  # sha256 | exists
    value: str = ""


@dataclass(frozen=True)
class SynthTest:
    """A frozen test: checks over a rollout's final working directory."""

    task_id: str
    checks: tuple[Check, ...]

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> SynthTest:
        data = json.loads(text)
        return cls(data["task_id"], tuple(Check(**c) for c in data["checks"]))

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.to_json().encode()).hexdigest()


def _semantic_bytes(name: str, data: bytes) -> bytes:
    """Archives compare by their members, not their bytes (which embed timestamps)."""
    try:
        if name.endswith((".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")):
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                members = sorted(tar.getmembers(), key=lambda m: m.name)
                parts = [
                    m.name.encode() + b"\0" + (tar.extractfile(m) or io.BytesIO()).read()
                    for m in members
                    if m.isfile()
                ]
            return b"\1".join(parts)
        if name.endswith(".gz"):
            return gzip.decompress(data)
        if name.endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                return b"\1".join(
                    n.encode() + b"\0" + archive.read(n) for n in sorted(archive.namelist())
                )
    except (tarfile.TarError, OSError, zipfile.BadZipFile, EOFError):
        pass  # not a readable archive: compare raw bytes
    return data


def _content_key(snapshot: Mapping[str, bytes], rel: str) -> str | None:
    """Digest of a file, or of every file under a directory; None when absent."""
    if rel in snapshot:
        return hashlib.sha256(_semantic_bytes(rel, snapshot[rel])).hexdigest()
    inside = sorted(k for k in snapshot if k.startswith(rel.rstrip("/") + "/"))
    if not inside:
        return None
    digest = hashlib.sha256()
    for name in inside:
        digest.update(name.encode() + b"\0" + _semantic_bytes(name, snapshot[name]))
    return digest.hexdigest()


def named_paths(instruction: str, workdir: str) -> list[str]:
    """Working-directory paths the instruction names, relative to the working directory."""
    root = workdir.rstrip("/") + "/"
    found = [p[len(root) :] for p in PATH_RE.findall(instruction) if p.startswith(root)]
    return sorted(set(found))


def synthesize(
    task_id: str, instruction: str, workdir: str, seed: Sequence[SeedRollout]
) -> SynthTest:
    """Build the frozen test of one task from its instruction and the seed's rollouts."""
    voters = [r for r in seed if is_clean(r.trajectory)] or list(seed)
    checks = []
    for rel in named_paths(instruction, workdir):
        keys = [_content_key(r.workspace, rel) for r in voters]
        present = [k for k in keys if k is not None]
        if not present:
            checks.append(Check(rel, "exists"))
            continue
        value, votes = Counter(present).most_common(1)[0]
        agreed = votes * 2 > len(voters)
        checks.append(Check(rel, "sha256", value) if agreed else Check(rel, "exists"))
    return SynthTest(task_id, tuple(checks))


def score(test: SynthTest, snapshot: Mapping[str, bytes]) -> bool:
    """Whether a rollout's final working directory passes the frozen test."""
    for check in test.checks:
        key = _content_key(snapshot, check.path)
        if key is None or (check.kind == "sha256" and key != check.value):
            return False
    return True
