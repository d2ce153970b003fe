from __future__ import annotations

import socket
from pathlib import Path

import pytest

from harnesspro.sandbox import Bubblewrap, Mount


def run(
    cmd: str, mounts: list[Mount] | None = None, timeout: float = 10.0
) -> tuple[int | None, str]:
    result = Bubblewrap().run(["bash", "-c", cmd], mounts or [], {}, "/", timeout)
    return result.exit_code, result.stdout + result.stderr


def test_only_mounted_dirs_are_writable(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    code, out = run(
        "echo ok > /workspace/a && echo x > /usr/x; echo x > /etc/x; echo $?",
        [Mount(work, "/workspace", True)],
    )
    assert (work / "a").read_text() == "ok\n"
    assert "Read-only file system" in out


def test_host_files_and_environment_are_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret")
    monkeypatch.setenv("HARNESSPRO_TEST_SECRET", "provider-key")
    code, out = run(f"cat {secret}; env")
    assert "s3cret" not in out
    assert "provider-key" not in out


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
    marker = tmp_path / "m"
    marker.mkdir()
    result = Bubblewrap().run(
        ["bash", "-c", "(sleep 2; touch /out/late) & sleep 30"],
        [Mount(marker, "/out", True)],
        {},
        "/",
        timeout_s=0.5,
    )
    assert result.timed_out and result.exit_code is None
    import time

    time.sleep(2.5)
    assert not (marker / "late").exists()
