"""`harnesspro doctor`: one line per check, exit 0 when the quickstart can run, 2 otherwise."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harnesspro.cli import main


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap")
def test_doctor_passes_on_a_machine_set_up_by_the_project(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    for name in ("bubblewrap", "cgroup limits", "ray", "tool environments", "price table"):
        assert f" {name}: " in out
    assert "pytest==" in out and "ready" in out


def test_doctor_without_bubblewrap_says_how_to_install_it_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no bwrap, no chromium
    assert main(["doctor"]) == 2
    captured = capsys.readouterr()
    assert (
        "FAIL bubblewrap: bwrap is not installed -> sh scripts/install_bubblewrap.sh"
        in captured.out
    )
    assert "warn chromium: not found" in captured.out
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
