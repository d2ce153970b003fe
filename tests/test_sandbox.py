from __future__ import annotations

import fcntl
import socket
import sys
import time
from pathlib import Path

import pytest

from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.contract import Mount


def run(
    cmd: str, mounts: list[Mount] | None = None, timeout: float = 10.0
) -> tuple[int | None, str]:
    result = Bubblewrap().run(["bash", "-c", cmd], mounts or [], {}, "/", timeout)
    return result.exit_code, result.stdout + result.stderr


def test_only_mounted_dirs_are_writable(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    code, out = run(
        'echo ok > /workspace/a; for d in /usr /etc /; do echo x > $d/x; echo "$d=$?"; done',
        [Mount(work, "/workspace", True)],
    )
    assert (work / "a").read_text() == "ok\n"
    for folder in ("/usr", "/etc", "/"):  # each write refused, not just one of them
        assert f"{folder}=1" in out.splitlines(), out
    assert out.count("Read-only file system") == 3, out


def test_host_files_and_environment_are_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret")
    monkeypatch.setenv("HARNESSPRO_TEST_SECRET", "provider-key")
    code, out = run(f"cat {secret}; env")
    assert "s3cret" not in out
    assert "provider-key" not in out


def test_harnesspro_cannot_be_imported_inside(tmp_path: Path) -> None:
    # Outside, this interpreter imports harnesspro (editable installs: through a .pth finder).
    script = (
        "import sys\n"
        "print('finder', any('__editable__' in name for name in sys.modules))\n"
        "try:\n    import harnesspro\n    print('imported')\n"
        "except ImportError:\n    print('absent')\n"
    )
    (tmp_path / "probe.py").write_text(script)
    result = Bubblewrap().run(
        [sys.executable, "/probe/probe.py"], [Mount(tmp_path, "/probe")], {}, "/", 10.0
    )
    assert result.stdout.split() == ["finder", "False", "absent"], result.stdout + result.stderr


def test_no_network_to_the_host() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        code, out = run(f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected")
    finally:
        server.close()
    assert "connected" not in out
    assert code != 0


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    """A background process holding a lock must be gone once the timed-out run returns: the
    lock becomes free (polled within a bound, not timed)."""
    out = tmp_path / "out"
    out.mkdir()
    lock = out / "lock"
    lock.touch()
    script = (
        "flock /out/lock bash -c 'echo held > /out/held; sleep 1000' & "
        "while [ ! -e /out/held ]; do sleep 0.05; done; sleep 1000"
    )
    result = Bubblewrap().run(["bash", "-c", script], [Mount(out, "/out", True)], {}, "/", 3.0)
    assert result.timed_out and result.exit_code is None
    assert (out / "held").exists()  # the background holder was running when time ran out
    with lock.open() as handle:
        deadline = time.monotonic() + 30
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break  # its holder is dead
            except BlockingIOError:
                assert time.monotonic() < deadline, "a process of the sandbox survived"
                time.sleep(0.05)
