"""Smoke rollouts are remembered across processes by the harness's files; a failed one is not."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from harnesspro.core.records import RolloutResult
from harnesspro.harness import smoke_memo, validate
from harnesspro.run.context import seed_template


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A harness folder, an empty cache, and this process's memory of smoke rollouts empty."""
    monkeypatch.setenv("HARNESSPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(smoke_memo, "_KEPT", {})
    harness = tmp_path / "harness"
    shutil.copytree(seed_template(), harness)
    return harness


def _new_process(monkeypatch: pytest.MonkeyPatch, result: RolloutResult | None) -> list[int]:
    """Forget this process's memory and make every real smoke rollout return `result` (None:
    fail the test), counting them."""
    monkeypatch.setattr(smoke_memo, "_KEPT", {})
    ran: list[int] = []

    def run(inputs: object) -> RolloutResult:
        ran.append(1)
        assert result is not None, "a remembered smoke rollout ran again"
        return result

    monkeypatch.setattr(validate, "run_rollout", run)
    return ran


def test_another_process_reads_the_smoke_rollout_back(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = validate.smoke_rollout(fresh)
    assert first.status == "ok"
    assert smoke_memo.memo_path().is_file()
    _new_process(monkeypatch, None)
    again = validate.smoke_rollout(fresh)
    assert (again.status, again.trajectory, again.n_calls) == (
        first.status,
        first.trajectory,
        first.n_calls,
    )


def test_a_changed_file_or_backend_is_a_new_rollout(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = validate.smoke_rollout(fresh)
    ran = _new_process(monkeypatch, first)
    prompt = next((fresh / "prompts").iterdir())
    prompt.write_text(prompt.read_text() + "\nBe brief.\n")
    validate.smoke_rollout(fresh)
    validate.smoke_rollout(fresh, sandbox="local")
    assert len(ran) == 2


def test_a_failed_smoke_rollout_is_not_stored(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ok = validate.smoke_rollout(fresh)
    prompt = next((fresh / "prompts").iterdir())
    prompt.write_text(prompt.read_text() + "\nSay little.\n")
    failed = replace(ok, status="harness_error", reason="timed out after 60 s")
    ran = _new_process(monkeypatch, failed)
    assert validate.smoke_rollout(fresh).status == "harness_error"
    assert validate.smoke_rollout(fresh).status == "harness_error"  # kept by this process
    assert len(ran) == 1
    ran = _new_process(monkeypatch, failed)
    validate.smoke_rollout(fresh)  # another process runs it again
    assert len(ran) == 1
