"""Workspace snapshots carry symlinks, modes, folders and git state, and survive the run
folder (saved, loaded, laid out again)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from harnesspro.execution.rollout import write_tree
from harnesspro.run.folder import RunFolder
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.snapshot import Snapshot, dumps, load, loads, save, take


def make_workspace(root: Path) -> None:
    (root / "releases" / "1.2.0" / "bin").mkdir(parents=True)
    (root / "releases" / "1.2.0" / "bin" / "run").write_text("#!/bin/sh\necho hi\n")
    (root / "releases" / "1.2.0" / "bin" / "run").chmod(0o755)
    (root / "empty").mkdir()
    os.symlink("releases/1.2.0", root / "current")
    os.symlink("/etc/passwd", root / "escape")  # recorded as text, never followed


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2020-01-01T00:00:00", "HOME": str(repo)}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def test_links_modes_and_folders_are_kept(tmp_path: Path) -> None:
    make_workspace(tmp_path / "w")
    snap = take(tmp_path / "w")
    assert snap.links == {"current": "releases/1.2.0", "escape": "/etc/passwd"}
    assert snap.modes["releases/1.2.0/bin/run"] == 0o755 and "empty" in snap.dirs
    assert dict(snap) == {"releases/1.2.0/bin/run": b"#!/bin/sh\necho hi\n"}  # a mapping
    save(tmp_path / "saved", snap)
    assert not (tmp_path / "saved" / "workspace" / "escape").exists()  # no link in artifacts
    assert load(tmp_path / "saved") == snap
    again = write_tree(tmp_path / "again", snap)
    assert os.readlink(again / "current") == "releases/1.2.0"
    assert os.stat(again / "releases/1.2.0/bin/run").st_mode & 0o777 == 0o755


def test_one_json_document_keeps_bytes_links_modes_and_folders(tmp_path: Path) -> None:
    make_workspace(tmp_path / "w")
    (tmp_path / "w" / "bytes.bin").write_bytes(bytes(range(256)))
    snap = take(tmp_path / "w")
    assert loads(dumps(snap)) == snap and loads(dumps(snap)).files["bytes.bin"] == bytes(range(256))


def test_old_run_folders_load_as_files_only(tmp_path: Path) -> None:
    run = RunFolder(tmp_path)
    (run.rollout_dir("k") / "workspace").mkdir(parents=True)
    (run.rollout_dir("k") / "workspace" / "a.txt").write_text("x")
    assert run.workspace("k") == Snapshot({"a.txt": b"x"})


def test_git_state_is_read_in_the_sandbox_without_hashes(tmp_path: Path) -> None:
    def repo(name: str) -> Snapshot:
        root = tmp_path / name
        (root / "lib").mkdir(parents=True)
        (root / "lib" / "a.py").write_text("print(1)\n")
        (root / "lib" / "junk.log").write_text("x\n")
        git(root / "lib", "init", "-q", "-b", "main")
        git(root / "lib", "add", "a.py")
        git(root / "lib", "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-qm", "First")
        git(root / "lib", "tag", "v1")
        return take(root, Bubblewrap(), "/workspace")

    first, second = repo("one"), repo("two")
    state = first.git["lib"]
    assert state["head"] == "main"
    assert state["branch:main"].endswith(" First") and state["tag:v1"].startswith("commit")
    assert state["untracked"] == "junk.log" and state["status"] == "?? junk.log"
    assert "a.py" in state["index"] and state["authors"] == "A <a@x>"
    assert first.git == second.git  # no commit hashes or dates: equal work, equal state
    assert "lib/.git/HEAD" in first  # the repository itself travels, to be rebuilt
