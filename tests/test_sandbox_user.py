"""The sandbox never runs commands as root: root-only host files stay unreadable inside, while
the writable mounts stay writable and keep what they had."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harnesspro.sandbox.bubblewrap import Bubblewrap, bwrap_argv
from harnesspro.sandbox.contract import Limits, Mount
from harnesspro.sandbox.user import SANDBOX_UID, hand_over, sandbox_uid

PROBE = """
id -u
for f in /etc/shadow /etc/gshadow /proc/1/environ; do
  if head -c1 "$f" >/dev/null 2>&1; then echo "read $f"; else echo "denied $f"; fi
done
echo more >> /workspace/notes.txt && echo appended
mkdir -p /workspace/sub && echo new > /workspace/sub/new.txt && echo created
grep -E '^Cap(Prm|Eff|Bnd):' /proc/self/status
"""

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root has a user to drop")


@as_root
def test_root_only_files_are_unreadable_and_the_workspace_writable(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("task file\n")
    (tmp_path / "notes.txt").chmod(0o600)  # root's own file, as staged by the layout
    assert Path("/etc/shadow").stat().st_uid == 0  # the host file the probe must not read
    result = Bubblewrap().run(
        ["bash", "-c", PROBE], [Mount(tmp_path, "/workspace", True)], {}, "/workspace", 30
    )
    lines = result.stdout.splitlines()
    assert lines[0] == str(SANDBOX_UID), result.stdout + result.stderr
    assert [line for line in lines if line.startswith("read ")] == [], result.stdout
    assert "denied /etc/shadow" in lines and "denied /proc/1/environ" in lines
    assert "appended" in lines and "created" in lines, result.stderr
    assert (tmp_path / "notes.txt").read_text() == "task file\nmore\n"
    assert (tmp_path / "sub" / "new.txt").stat().st_uid == SANDBOX_UID
    for cap in ("CapPrm", "CapEff", "CapBnd"):
        assert f"{cap}:\t0000000000000000" in lines, result.stdout


@as_root
def test_a_harness_link_is_never_handed_over(tmp_path: Path) -> None:
    host_file = tmp_path / "host.txt"
    host_file.write_text("host")
    work = tmp_path / "work"
    work.mkdir()
    (work / "link").symlink_to(host_file)
    chain = [work]
    for _ in range(1100):  # deeper than Python's recursion limit
        chain.append(chain[-1] / "d")
        chain[-1].mkdir()
    try:
        hand_over(work, SANDBOX_UID)
        assert host_file.stat().st_uid == 0
        assert os.lstat(work / "link").st_uid == 0  # the link itself is left as it is
        assert chain[-1].stat().st_uid == SANDBOX_UID and work.stat().st_uid == SANDBOX_UID
    finally:  # pytest's own clean-up would recurse out of the stack
        for folder in reversed(chain[1:]):
            folder.rmdir()


@as_root
def test_the_switch_runs_with_an_empty_environment() -> None:
    # The one root step (setpriv) must not load what a harness could set, e.g. LD_PRELOAD.
    argv = bwrap_argv(["true"], [], {"LD_PRELOAD": "/workspace/x.so"}, "/w", None, 1234)
    split = argv.index("--")
    assert "--setenv" not in argv[:split] and "--clearenv" in argv[:split]
    assert argv[split + 1].endswith("setpriv") and "--reuid=1234" in argv
    env_at = argv.index("/usr/bin/env")  # after the switch, as the sandbox user
    assert argv[env_at : env_at + 4] == ["/usr/bin/env", "-i", "--chdir=/w", "--"]
    assert "LD_PRELOAD=/workspace/x.so" in argv[env_at:] and argv[-1] == "true"


def test_not_root_means_no_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert sandbox_uid() is None
    argv = bwrap_argv(["true"], [], {}, "/", None, sandbox_uid())
    assert "--unshare-all" in argv and not any("setpriv" in word for word in argv)


def test_file_size_is_capped_per_sandbox(tmp_path: Path) -> None:
    writes = (
        "dd if=/dev/zero of=/workspace/dd.bin bs=1M count=8 status=none; echo dd=$?; "
        "python -c \"open('/workspace/py.bin', 'wb').write(bytes(8 << 20))\"; echo py=$?; "
        "head -c 1048576 /dev/zero > /workspace/small.bin; echo small=$?"
    )
    result = Bubblewrap(Limits(max_file_mb=2)).run(
        ["bash", "-c", writes], [Mount(tmp_path, "/workspace", True)], {}, "/workspace", 30
    )
    assert "dd=0" not in result.stdout and "py=0" not in result.stdout, result.stdout
    assert "small=0" in result.stdout, result.stdout + result.stderr
    assert "File too large" in result.stderr
    assert (tmp_path / "dd.bin").stat().st_size <= 2 << 20
    assert (tmp_path / "py.bin").stat().st_size <= 2 << 20


@as_root
def test_a_private_folder_bound_read_only_is_readable_but_links_are_left(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir(mode=0o700)  # as `mkdtemp` makes a tool environment
    (tools / "t.txt").write_text("tool")
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret")
    secret.chmod(0o600)
    link = tmp_path / "link"
    link.symlink_to(secret)
    mounts = [Mount(tools, "/opt/tools"), Mount(link, "/opt/link")]
    script = "cat /opt/tools/t.txt; cat /opt/link"
    result = Bubblewrap().run(["bash", "-c", script], mounts, {}, "/", 30)
    assert result.stdout == "tool", result.stderr
    assert "s3cret" not in result.stdout and (secret.stat().st_mode & 0o777) == 0o600


@as_root
def test_host_system_entries_bound_read_only_keep_their_modes() -> None:
    # A task that adds a file under /etc has the host's /etc entries re-bound one by one.
    private = [p for p in (Path("/etc/shadow"), Path("/etc/ssl/private")) if p.exists()]
    before = {p: p.stat().st_mode for p in private}
    try:
        mounts = [Mount(p, str(p)) for p in private]
        result = Bubblewrap().run(["bash", "-c", "cat /etc/shadow"], mounts, {}, "/", 30)
        assert result.exit_code != 0 and "Permission denied" in result.stderr
        assert {p: p.stat().st_mode for p in private} == before
    finally:  # should this regress, leave the host as it was
        for path, mode in before.items():
            if path.stat().st_mode != mode:
                path.chmod(mode)
