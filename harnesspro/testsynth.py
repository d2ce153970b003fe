"""Test synthesis without ground truth, and the frozen-test scorer.

The offline heuristic writes one test per task from the instruction and the seed harness's G
rollouts only: every working-directory path the instruction names must end up with the
content most seed rollouts agreed on (a majority vote), or at least exist when they did not
agree. Official tests and reference solutions are never read here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

PATH_RE = re.compile(r"`(/[^`\s]+)`")


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


def _content_key(snapshot: Mapping[str, bytes], rel: str) -> str | None:
    """Digest of a file, or of every file under a directory; None when absent."""
    if rel in snapshot:
        return hashlib.sha256(snapshot[rel]).hexdigest()
    inside = sorted(k for k in snapshot if k.startswith(rel.rstrip("/") + "/"))
    if not inside:
        return None
    digest = hashlib.sha256()
    for name in inside:
        digest.update(name.encode() + b"\0" + snapshot[name])
    return digest.hexdigest()


def named_paths(instruction: str, workdir: str) -> list[str]:
    """Working-directory paths the instruction names, relative to the working directory."""
    root = workdir.rstrip("/") + "/"
    found = [p[len(root) :] for p in PATH_RE.findall(instruction) if p.startswith(root)]
    return sorted(set(found))


def synthesize(
    task_id: str, instruction: str, workdir: str, seed_snapshots: Sequence[Mapping[str, bytes]]
) -> SynthTest:
    """Build the frozen test of one task from its instruction and the seed's rollouts."""
    checks = []
    for rel in named_paths(instruction, workdir):
        keys = [_content_key(snap, rel) for snap in seed_snapshots]
        present = [k for k in keys if k is not None]
        if not present:
            checks.append(Check(rel, "exists"))
            continue
        value, votes = Counter(present).most_common(1)[0]
        agreed = votes * 2 > len(seed_snapshots)
        checks.append(Check(rel, "sha256", value) if agreed else Check(rel, "exists"))
    return SynthTest(task_id, tuple(checks))


def score(test: SynthTest, snapshot: Mapping[str, bytes]) -> bool:
    """Whether a rollout's final working directory passes the frozen test."""
    for check in test.checks:
        key = _content_key(snapshot, check.path)
        if key is None or (check.kind == "sha256" and key != check.value):
            return False
    return True
