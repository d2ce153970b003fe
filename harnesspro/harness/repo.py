"""The run's harness repository: every candidate is a commit with its own worktree."""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
from pathlib import Path

# Without a git program GitPython refuses to import; every command would then end in a
# traceback before `harnesspro doctor` could say "install git".
os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
import git  # noqa: E402

from harnesspro.tasks.loader import folder_files

AUTHOR = git.Actor("harnesspro", "harnesspro@localhost")


class HarnessRepo:
    """A git repository holding the seed on `main` and one branch + worktree per candidate."""

    def __init__(self, root: Path, worktrees: Path) -> None:
        # Absolute: git resolves relative worktree paths against the repository, not our cwd.
        self.root = root.resolve()
        self.worktrees = worktrees.resolve()
        if (root / ".git").exists():
            self.repo = git.Repo(root)
        else:
            root.mkdir(parents=True, exist_ok=True)
            self.repo = git.Repo.init(root, initial_branch="main")

    def commit_seed(self, template: Path) -> tuple[str, str]:
        """Copy the seed template in and commit it once; returns (commit, tree)."""
        if not self.repo.head.is_valid():
            shutil.copytree(
                template,
                self.root,
                dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("__pycache__"),
            )
            self.repo.git.add(A=True)
            self.repo.index.commit("seed harness", author=AUTHOR, committer=AUTHOR)
        head = self.repo.head.commit
        return head.hexsha, head.tree.hexsha

    def worktree_for(self, candidate_id: str) -> Path:
        return self.root if candidate_id == "c000" else self.worktrees / candidate_id

    def start_candidate(self, candidate_id: str, parent_commit: str) -> Path:
        """A fresh worktree on branch cand/<id> at the parent's commit."""
        path = self.worktrees / candidate_id
        if path.exists():
            self.discard(candidate_id)
        self.repo.git.worktree("add", "-B", f"cand/{candidate_id}", str(path), parent_commit)
        return path

    def commit_candidate(self, candidate_id: str, message: str) -> tuple[str, str]:
        """Commit everything in the candidate's worktree; returns (commit, tree)."""
        work = git.Repo(self.worktrees / candidate_id)
        work.git.add(A=True)
        commit = work.index.commit(message, author=AUTHOR, committer=AUTHOR)
        return commit.hexsha, commit.tree.hexsha

    def discard(self, candidate_id: str) -> None:
        """Remove a worktree and its branch (a duplicate or an invalid candidate). Either may
        be half made or missing after a crash: whatever is there goes."""
        path = self.worktrees / candidate_id
        # Twice --force: also a worktree `git worktree add` left locked ("initializing").
        self.repo.git.worktree("remove", "--force", "--force", str(path), with_exceptions=False)
        shutil.rmtree(path, ignore_errors=True)
        self.repo.git.worktree("prune")
        self.repo.git.branch("-D", f"cand/{candidate_id}", with_exceptions=False)

    def recover(self) -> None:
        """Undo what a killed run left mid-operation: stale lock files (a commit, a branch or
        a note being written) and worktrees whose folder is gone. Only call it while holding
        the run folder's lock, when no other git process can be working on this repository."""
        git_dir = self.root / ".git"
        if not git_dir.is_dir():
            return
        for lock in git_dir.rglob("*.lock"):
            lock.unlink(missing_ok=True)
        # `git worktree add` locks a new worktree ("initializing") until its checkout is done,
        # and prune skips locked ones; this code never locks one itself.
        for lock in git_dir.glob("worktrees/*/locked"):
            lock.unlink(missing_ok=True)
        self.repo.git.worktree("prune")

    def files(self, commit: str) -> dict[str, bytes]:
        """The commit's tree as relative path -> content."""
        with tempfile.TemporaryDirectory() as tmp:
            self.export(commit, Path(tmp))
            return folder_files(Path(tmp))

    def has_file(self, commit: str, path: str) -> bool:
        """Whether the commit's tree holds the file `path` (read from git, nothing exported)."""
        try:
            return bool((self.repo.commit(commit).tree / path).type == "blob")
        except KeyError:
            return False

    def export(self, commit: str, out: Path) -> None:
        """Write the commit's tree into `out` (exactly the tree, nothing else)."""
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile() as archive:
            self.repo.archive(archive, treeish=commit, format="tar")
            archive.seek(0)
            with tarfile.open(fileobj=archive) as tar:
                tar.extractall(out, filter="data")

    def diff_stat(self, parent: str, child: str) -> str:
        return str(self.repo.git.diff("--shortstat", parent, child))

    def changed_files(self, parent: str, child: str) -> list[str]:
        """Paths that differ between two commits."""
        return [p for p in str(self.repo.git.diff("--name-only", parent, child)).splitlines() if p]

    def annotate(self, commit: str, text: str) -> None:
        """Attach a git note to a commit (shown by `git log`); the commit stays as it was. A
        note already there is not repeated (a resumed epoch records its verdicts again)."""
        if text in str(self.repo.git.notes("show", commit, with_exceptions=False)):
            return
        who = {"NAME": AUTHOR.name, "EMAIL": AUTHOR.email}
        env = {
            f"GIT_{role}_{k}": str(v) for role in ("AUTHOR", "COMMITTER") for k, v in who.items()
        }
        self.repo.git.notes("append", "-m", text, commit, env=env)
