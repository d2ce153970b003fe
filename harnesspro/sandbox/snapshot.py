"""The workspace snapshot: what a rollout left in its working directory, as data.

Small regular files (with their bytes, including each repository's `.git/` files so a test can
rebuild the repository), symbolic links (their target text, never followed), permission bits
of files and folders, and every git repository's state (HEAD, branches, tags, index,
untracked files, status). The state is read by running `git` inside the sandbox, because a
repository's config and hooks are the agent's code. A `Snapshot` is also a mapping of
relative path -> bytes, so code that only reads files sees the same thing as before.
"""

from __future__ import annotations

import base64
import json
import os
import stat
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from harnesspro.sandbox.contract import Mount, Sandbox
from harnesspro.sandbox.untrusted import read_regular, walk

FILE_CAP = 256_000
TOTAL_CAP = 10_000_000  # bytes of one rollout's workspace copy in the run folder
GIT_TIMEOUT_S = 30.0
SNAPSHOT_TIMEOUT_S = 120.0  # host-side limit of one snapshot, git included
MAX_ENTRIES = 200_000  # files, folders and links one snapshot records
META = "snapshot.json"
MARK = "@@hp "  # starts a section of the script's output
# Hashes and dates differ between runs of the same work; these commands print neither.
GIT_SCRIPT = r"""
g() { git -c safe.directory='*' -c core.fsmonitor=false -c core.hooksPath=/dev/null "$@"; }
export GIT_OPTIONAL_LOCKS=0
echo "@@hp head"; g symbolic-ref -q --short HEAD || echo "(detached)"
for b in $(g for-each-ref --format='%(refname:short)' refs/heads); do
  echo "@@hp branch:$b"; g log --reverse --format='%T %s' "$b"
done
for t in $(g for-each-ref --format='%(refname:short)' refs/tags); do
  echo "@@hp tag:$t"; g for-each-ref --format='%(objecttype) %(contents:subject)' "refs/tags/$t"
  g log -1 --format='%T %s' "$t^{commit}"
done
echo "@@hp authors"; g log --all --format='%an <%ae>' | sort -u
echo "@@hp index"; g ls-files -s
echo "@@hp untracked"; g ls-files --others --exclude-standard
echo "@@hp status"; g status --porcelain
"""

GitState = Mapping[str, str]
"""One repository: aspect (`head`, `branch:<name>`, `tag:<name>`, `authors`, `index`,
`untracked`, `status`) -> its text."""


@dataclass(frozen=True, eq=True)
class Snapshot(Mapping[str, bytes]):
    """A working directory after a rollout; as a mapping, its regular files."""

    files: Mapping[str, bytes] = field(default_factory=dict)
    links: Mapping[str, str] = field(default_factory=dict)
    """Symbolic link -> its target, as written (never resolved)."""
    modes: Mapping[str, int] = field(default_factory=dict)
    """Permission bits (e.g. 0o755) of every file and folder."""
    dirs: tuple[str, ...] = ()
    git: Mapping[str, GitState] = field(default_factory=dict)
    """Repository folder ('' = the working directory itself) -> its state."""

    def __getitem__(self, rel: str) -> bytes:
        return self.files[rel]

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def meta(self) -> dict[str, object]:
        """Everything but the file bytes, as JSON-ready data."""
        return {
            "links": dict(self.links),
            "modes": {k: oct(v) for k, v in self.modes.items()},
            "dirs": list(self.dirs),
            "git": {k: dict(v) for k, v in self.git.items()},
        }


def as_snapshot(files: Mapping[str, bytes]) -> Snapshot:
    """A plain mapping of files (an old run's workspace) as a Snapshot."""
    return files if isinstance(files, Snapshot) else Snapshot(dict(files))


class SnapshotLimit(Exception):
    """The working directory is too big to snapshot: more entries, or more time, than allowed
    (the one-line reason is the harness's failure)."""


def _too_slow(timeout_s: float) -> str:
    return f"snapshotting the working directory took more than {timeout_s:g} s"


def _link_text(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:  # gone, or its target text is unreadable: recorded empty
        return ""


def take(
    root: Path,
    sandbox: Sandbox | None = None,
    workdir: str = "",
    total_cap: int = TOTAL_CAP,
    timeout_s: float = SNAPSHOT_TIMEOUT_S,
    max_entries: int = MAX_ENTRIES,
) -> Snapshot:
    """Snapshot `root`; git state is read with `sandbox` (mounting root at `workdir`). File
    contents stop at `total_cap` bytes in all: later files (in walk order) are left out, as
    are links' targets, FIFOs and devices (never opened). Raises SnapshotLimit past
    `max_entries` entries or `timeout_s` seconds (git included)."""
    deadline = time.monotonic() + timeout_s
    files, links, modes, dirs, total = {}, {}, {}, [], 0
    for count, (rel, st) in enumerate(walk(root)):
        if count >= max_entries:
            raise SnapshotLimit(f"the working directory has more than {max_entries:,} entries")
        if time.monotonic() > deadline:
            raise SnapshotLimit(_too_slow(timeout_s))
        if stat.S_ISLNK(st.st_mode):
            links[rel] = _link_text(root / rel)
            continue
        modes[rel] = stat.S_IMODE(st.st_mode)
        if stat.S_ISDIR(st.st_mode):
            dirs.append(rel)
        elif stat.S_ISREG(st.st_mode) and st.st_size <= min(FILE_CAP, total_cap - total):
            data = read_regular(root / rel, FILE_CAP)
            if data is not None:
                files[rel] = data
                total += len(data)
    repos = sorted(str(Path(d).parent) for d in dirs if Path(d).name == ".git")
    git = {}
    if sandbox is not None and workdir:
        for repo in repos:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SnapshotLimit(_too_slow(timeout_s))
            git["" if repo == "." else repo] = git_state(root, repo, sandbox, workdir, left)
    return Snapshot(files, links, modes, tuple(dirs), git)


def git_state(
    root: Path, repo: str, sandbox: Sandbox, workdir: str, timeout_s: float = GIT_TIMEOUT_S
) -> GitState:
    """The state of the repository at root/repo, read by git in the sandbox (read-only)."""
    mounts = [Mount(root, workdir)]
    cwd = sandbox.visible_path(mounts, workdir).rstrip("/") + ("" if repo == "." else "/" + repo)
    limit = min(GIT_TIMEOUT_S, timeout_s)
    result = sandbox.run(["bash", "-c", GIT_SCRIPT], mounts, {}, cwd, limit)
    state: dict[str, list[str]] = {}
    current = None
    for line in result.stdout.splitlines():
        if line.startswith(MARK):
            current = line[len(MARK) :]
            state[current] = []
        elif current is not None:
            state[current].append(line)
    return {aspect: "\n".join(lines) for aspect, lines in state.items()}


def write(root: Path, snap: Mapping[str, bytes]) -> Path:
    """Lay a snapshot out under root: files, folders, modes, then links (written last so no
    file is ever written through one)."""
    snap = as_snapshot(snap)
    root.mkdir(parents=True, exist_ok=True)
    for rel in snap.dirs:
        (root / rel).mkdir(parents=True, exist_ok=True)
    for rel, data in snap.files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for rel, mode in sorted(snap.modes.items(), key=lambda kv: -kv[0].count("/")):
        if (root / rel).exists() and not (root / rel).is_symlink():
            (root / rel).chmod(mode | (stat.S_IRWXU if rel in snap.dirs else stat.S_IRUSR))
    for rel, target_text in snap.links.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target_text, root / rel)
    return root


def save(folder: Path, snap: Mapping[str, bytes]) -> None:
    """A rollout's snapshot in its artifact folder: `workspace/` (regular files only) and
    `snapshot.json` (links, modes, folders, git state)."""
    snap = as_snapshot(snap)
    write(folder / "workspace", Snapshot(snap.files, dirs=snap.dirs))
    # ensure_ascii (the default) keeps a non-UTF-8 name's surrogate escapes: lossless.
    (folder / META).write_text(json.dumps(snap.meta(), indent=1, sort_keys=True) + "\n")


def dumps(snap: Mapping[str, bytes]) -> str:
    """A snapshot as one JSON document (file bytes in base64), for keeping beside a table."""
    snap = as_snapshot(snap)
    files = {rel: base64.b64encode(data).decode() for rel, data in sorted(snap.files.items())}
    return json.dumps({"files": files, **snap.meta()}, sort_keys=True) + "\n"


def loads(text: str) -> Snapshot:
    """The snapshot `dumps` wrote."""
    data = json.loads(text)
    return Snapshot(
        {rel: base64.b64decode(b64) for rel, b64 in data["files"].items()},
        links=data.get("links", {}),
        modes={k: int(v, 8) for k, v in data.get("modes", {}).items()},
        dirs=tuple(data.get("dirs", [])),
        git=data.get("git", {}),
    )


def load(folder: Path) -> Snapshot:
    """The snapshot `save` wrote; an old run's folder without `snapshot.json` gives files only."""
    work = folder / "workspace"
    files = {
        rel: (work / rel).read_bytes()
        for rel, st in (walk(work) if work.is_dir() else ())
        if stat.S_ISREG(st.st_mode)
    }
    meta_path = folder / META
    if not meta_path.is_file():
        return Snapshot(files)
    meta = json.loads(meta_path.read_text())
    return Snapshot(
        files,
        links=meta.get("links", {}),
        modes={k: int(v, 8) for k, v in meta.get("modes", {}).items()},
        dirs=tuple(meta.get("dirs", [])),
        git=meta.get("git", {}),
    )
