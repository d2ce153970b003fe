"""What a harness leaves on the host cannot crash, hang or launder its rollout: deep folder
chains are walked and removed without recursion, FIFOs and links are never opened, and a
call held open at the time limit is the harness's timeout, not an infrastructure error."""

from __future__ import annotations

import os
import stat
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from harnesspro.core.model_config import LatencyConfig, ModelConfig
from harnesspro.execution.rollout import run_rollout
from harnesspro.run.context import seed_template
from harnesspro.sandbox.snapshot import SnapshotLimit, take
from harnesspro.sandbox.untrusted import read_regular, remove_tree, tree_size, walk
from harnesspro.tasks.loader import folder_files
from tests.conftest import builtin_task, inputs_for

LINK = "folder-of-a-very-deep-chain"  # 27 characters: 1,500 of them pass the 4,096 path limit


def chain(root: Path, depth: int, name: str = LINK) -> None:
    """`depth` nested folders under root, made relative to the current one (as a harness
    does it: no path is ever longer than one name)."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A folder for deep chains, removed here: pytest's own clean-up of old temp folders
    (shutil.rmtree) would hit the RecursionError under test, in a later session. Directly
    under the system's temporary folder: a rollout's gateway socket lies three levels below,
    and pytest's folders (pytest-of-root/pytest-106/popen-gw1/<test name>) pushed its path past
    the 107 bytes a Unix socket's path may have."""
    folder = Path(tempfile.mkdtemp(prefix="hp-scratch-"))
    yield folder
    assert remove_tree(folder) == ""


def test_walk_is_iterative_and_stops_at_the_path_cap(scratch: Path) -> None:
    chain(scratch, 1500, "d")
    (scratch / "a.txt").write_bytes(b"12345")
    seen = list(walk(scratch, path_cap=999))
    # "d", "d/d", ...: the k-th folder's path has 2k - 1 characters, so k <= 500 fit in 999.
    folders = [rel for rel, st in seen if stat.S_ISDIR(st.st_mode)]
    assert len(folders) == 500 and folders[-1] == "/".join(["d"] * 500)
    assert [rel for rel, _ in seen][:3] == ["d", "a.txt", "d/d"]
    assert tree_size(scratch) == 5


def test_walk_order_is_folders_first_then_depth_first(tmp_path: Path) -> None:
    for rel in ("b/y", "a/x", "a/w/v"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    (tmp_path / "c").symlink_to("a")  # a link to a folder: listed, never entered
    order = [rel for rel, _ in walk(tmp_path)]
    assert order == ["a", "b", "c", "a/w", "a/x", "a/w/v", "b/y"]


def test_a_deep_chain_is_removed(scratch: Path) -> None:
    root = scratch / "hp-roll-x"
    root.mkdir()
    chain(root, 1500)  # ~42,000 characters deep: shutil.rmtree on 3.11 raises RecursionError
    (root / "locked").mkdir()
    (root / "locked" / "f").write_text("x")
    (root / "locked").chmod(0o500)  # a folder the harness made unwritable
    os.mkfifo(root / "fifo")
    assert remove_tree(root) == ""
    assert not root.exists()
    assert remove_tree(root) == ""  # already gone: nothing to do


def test_remove_tree_reports_a_timeout(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(2000):
        (root / str(i)).mkdir()
    reason = remove_tree(root, timeout_s=1e-4)
    assert "did not finish within" in reason
    assert remove_tree(root) == ""


def test_read_regular_never_opens_links_fifos_or_folders(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"abcdef")
    (tmp_path / "link").symlink_to(tmp_path / "f")
    os.mkfifo(tmp_path / "fifo")  # opening it for reading would block without O_NONBLOCK
    started = time.monotonic()
    assert read_regular(tmp_path / "f", 4) == b"abcd"
    assert read_regular(tmp_path / "link", 100) is None
    assert read_regular(tmp_path / "fifo", 100) is None
    assert read_regular(tmp_path, 100) is None
    assert read_regular(tmp_path / "missing", 100) is None
    assert time.monotonic() - started < 5


def test_snapshot_survives_fifos_links_and_deep_chains(scratch: Path) -> None:
    chain(scratch, 1500, "d")
    os.mkfifo(scratch / "result.json")
    (scratch / "environ").symlink_to("/proc/self/environ")
    (scratch / "ok.txt").write_text("ok")
    snap = take(scratch)
    assert snap.files == {"ok.txt": b"ok"}  # the FIFO is recorded by mode only, never opened
    assert snap.links == {"environ": "/proc/self/environ"}
    assert len(snap.dirs) == 500  # up to the 1,000-character path cap


def test_snapshot_entry_limit(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"f{i}").write_text("x")
    assert len(take(tmp_path, max_entries=5)) == 5
    with pytest.raises(SnapshotLimit, match="more than 4 entries"):
        take(tmp_path, max_entries=4)


DEEP_AGENT = f"""
import json, os
for where in (".", os.environ["HARNESSPRO_OUT"]):
    fd = os.open(where, os.O_RDONLY)
    for _ in range(1500):
        os.mkdir("{LINK}", dir_fd=fd)
        inner = os.open("{LINK}", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.mkfifo("trap", dir_fd=fd)
os.mkfifo(os.path.join(os.environ["HARNESSPRO_OUT"], "trajectory.jsonl"))
with open(os.path.join(os.environ["HARNESSPRO_OUT"], "result.json"), "w") as out:
    json.dump({{"done": True}}, out)
"""


def test_a_deep_chain_left_by_a_harness_is_its_failure_and_cleaned(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # hp-roll-* folders land here
    harness = folder_files(seed_template())
    harness["agent/__main__.py"] = DEEP_AGENT.encode()
    result = run_rollout(inputs_for(builtin_task("sales_by_region"), 0, harness))
    # It ran to the end and solved nothing: a scored failure, not an infrastructure error.
    assert result.status == "ok", result.reason
    assert result.official_pass is False
    assert result.trajectory == ""  # a FIFO where the trajectory belongs is never opened
    assert list(scratch.glob("hp-roll-*")) == []


def test_a_call_held_open_at_the_time_limit_is_a_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    slow = ModelConfig(latency=LatencyConfig(first_token_s=(30.0, 30.0)))
    inputs = inputs_for(builtin_task("sales_by_region"), 0, folder_files(seed_template()))
    inputs = replace(inputs, model=slow, timeout_s=4.0)
    started = time.monotonic()
    result = run_rollout(inputs)
    assert result.status == "timeout", result.reason
    assert "while a model call was still unanswered" in result.reason
    assert time.monotonic() - started < 30  # the held call does not hold the rollout
    assert list(tmp_path.glob("hp-roll-*")) == []
