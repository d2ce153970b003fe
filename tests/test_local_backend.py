"""`sandbox.backend: local` end to end: `evolve` on the tiny config runs to completion without
bubblewrap in the driver (the editor's smoke validation included), warns once, and its
rollouts do the same work as under bubblewrap (paths remapped to the host folders)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from harnesspro import sandbox
from harnesspro.cli import main
from harnesspro.sandbox.contract import Mount, SandboxUnavailable, map_paths
from harnesspro.sandbox.local import LOCAL_WARNING, Local
from tests.conftest import tiny_config


def test_map_paths_replaces_whole_container_paths_only() -> None:
    mounts = [Mount("/h/ws", "/workspace"), Mount("/h/logs", "/logs/verifier"), Mount("/t", "/t")]
    text = "cd /workspace && cat /workspace/a >/logs/verifier/r; ls /workspacex /x/workspace /t"
    assert map_paths(text, mounts) == (
        "cd /h/ws && cat /h/ws/a >/h/logs/r; ls /workspacex /x/workspace /t"
    )


def test_local_runs_a_script_that_names_container_paths(tmp_path: Path) -> None:
    work, tests = tmp_path / "work", tmp_path / "tests"
    work.mkdir()
    tests.mkdir()
    (work / "answer.txt").write_text("42\n")
    (tests / "test.sh").write_text("cat /workspace/answer.txt > /workspace/seen.txt\n")
    mounts = [Mount(work, "/workspace", writable=True), Mount(tests, "/tests")]
    with pytest.warns(UserWarning):
        local = Local()
    result = local.run(["bash", "/tests/test.sh"], mounts, {}, "/workspace", 30)
    assert result.exit_code == 0, result.stderr
    assert (work / "seen.txt").read_text() == "42\n"
    assert (tests / "test.sh").read_text().startswith("cat /workspace/")  # the task's file kept


@pytest.mark.slow
def test_evolve_with_the_local_backend_completes(
    tmp_path: Path,
    ray_session: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def no_bubblewrap(*args: object, **kwargs: object) -> None:
        raise SandboxUnavailable("bubblewrap is not installed (test)")

    # The driver runs the editor's smoke rollouts: they must not need bubblewrap.
    monkeypatch.setattr(sandbox, "Bubblewrap", no_bubblewrap)
    evaluation = {"final": False, "validation_rollouts": 0, "official_on_search": True}
    config = tiny_config(tmp_path, evaluation=evaluation)  # official verdicts read below
    argv = ["evolve", "--config", str(config), "--run-dir", str(tmp_path / "run")]
    assert main([*argv, "--set", "sandbox.backend=local"]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("epoch 1 ") >= 3  # lite, medium and heavy of epoch 1
    assert captured.out.count(LOCAL_WARNING) == 1  # said once, at start
    with sqlite3.connect(tmp_path / "run" / "ledger.sqlite") as db:
        rows = db.execute("SELECT status, official_pass, verifier_reason FROM rollouts").fetchall()
        children = db.execute("SELECT count(*) FROM candidates WHERE epoch = 1").fetchone()[0]
    assert children >= 1  # the editor's candidates passed their smoke validation
    assert rows and {status for status, _, _ in rows} == {"ok"}
    # The verifier found the agent's work at the remapped paths: some rollouts pass, and no
    # failure is a container path that does not exist on the host.
    assert any(official for _, official, _ in rows)
    assert not any("No such file" in (reason or "") for _, _, reason in rows)
