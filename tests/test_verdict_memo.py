"""The fast mode's verdict memo: equal final states share a verdict, any difference a
verifier could see (a byte, a mode, a link's target) does not."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from harnesspro.cli import main
from harnesspro.core.records import VerifierEvidence
from harnesspro.execution import rollout
from harnesspro.execution.verdict_memo import TooBig, VerdictMemo, memo_key, tree_digest


def _tree(root: Path) -> Path:
    (root / "out").mkdir(parents=True)
    (root / "out" / "report.csv").write_text("a,1\nb,2\n")
    (root / "run.sh").write_text("echo hi\n")
    os.symlink("out/report.csv", root / "latest")
    return root


def test_equal_trees_have_equal_digests(tmp_path: Path) -> None:
    assert tree_digest(_tree(tmp_path / "a")) == tree_digest(_tree(tmp_path / "b"))


@pytest.mark.parametrize(
    "change",
    [
        lambda r: (r / "out" / "report.csv").write_text("a,1\nb,3\n"),  # one byte
        lambda r: (r / "run.sh").chmod(0o755),  # a mode
        lambda r: (os.remove(r / "latest"), os.symlink("/logs/verifier/reward.txt", r / "latest")),
        lambda r: (r / "out" / "extra").mkdir(),  # an empty folder
        lambda r: (r / "out" / "report.csv").rename(r / "out" / "report2.csv"),  # a name
    ],
)
def test_any_visible_difference_changes_the_digest(tmp_path: Path, change) -> None:
    same = tree_digest(_tree(tmp_path / "a"))
    changed = _tree(tmp_path / "b")
    change(changed)
    assert tree_digest(changed) != same


def test_links_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = _tree(tmp_path / "a")
    os.symlink(outside, root / "elsewhere")
    before = tree_digest(root)
    (outside / "big").write_bytes(b"x" * 1000)
    assert tree_digest(root) == before


def test_a_tree_too_big_is_not_memoised(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("harnesspro.execution.verdict_memo.MAX_ENTRIES", 2)
    root = _tree(tmp_path / "a")
    with pytest.raises(TooBig):
        tree_digest(root)
    assert memo_key("task", root) is None


def _verdict(passed: bool) -> VerifierEvidence:
    return VerifierEvidence(passed, 1.0 if passed else 0.0, 0, False, "reward", "ok", {})


def test_graded_runs_the_verifier_once_per_distinct_state(tmp_path: Path, monkeypatch) -> None:
    runs: list[Path] = []

    def grade(task: object, layout: SimpleNamespace, sandbox: object) -> VerifierEvidence:
        runs.append(layout.root)
        return _verdict((layout.root / "run.sh").stat().st_mode & 0o100 == 0)

    monkeypatch.setattr(rollout, "grade", grade)
    memo = tmp_path / "memo.sqlite"
    inputs = SimpleNamespace(verdict_memo=memo, task=SimpleNamespace(digest="t1"))

    def layout(name: str) -> SimpleNamespace:
        root = _tree(tmp_path / name / "fs")
        (tmp_path / name / "logs" / "agent").mkdir(parents=True)
        return SimpleNamespace(root=root, logs=tmp_path / name / "logs")

    first, second, third = layout("a"), layout("b"), layout("c")
    (third.root / "run.sh").chmod(0o755)
    verdicts = [rollout.graded(inputs, None, x, None) for x in (first, second, third)]  # type: ignore[arg-type]
    assert [v.passed for v in verdicts] == [True, True, False]
    assert runs == [first.root, third.root]  # the second state equals the first
    other_task = SimpleNamespace(verdict_memo=memo, task=SimpleNamespace(digest="t2"))
    rollout.graded(other_task, None, second, None)  # type: ignore[arg-type]
    assert runs[-1] == second.root  # another task's verdict is never reused


def test_without_a_memo_every_rollout_is_graded(tmp_path: Path, monkeypatch) -> None:
    calls = []

    def grade(task: object, layout: object, sandbox: object) -> VerifierEvidence:
        calls.append(1)
        return _verdict(True)

    monkeypatch.setattr(rollout, "grade", grade)
    inputs = SimpleNamespace(verdict_memo=None)
    for _ in range(2):
        rollout.graded(inputs, None, None, None)  # type: ignore[arg-type]
    assert len(calls) == 2


def test_memo_round_trip(tmp_path: Path) -> None:
    memo = VerdictMemo(tmp_path / "m.sqlite")
    memo.put("k", _verdict(False))
    assert memo.get("k") == _verdict(False)
    assert memo.get("other") is None
    memo.close()


def test_a_memo_with_a_real_model_is_refused(tmp_path: Path, capsys) -> None:
    """Reusing verdicts is sound only in the scripted world: with a real model the setting is
    one sentence naming it, exit 2, and nothing is run."""
    config = tmp_path / "real.yaml"
    config.write_text(
        "name: real\n"
        "model: {name: gpt-4o-mini, upstream: openai, base_url: 'http://127.0.0.1:9/v1'}\n"
        f"evaluation: {{verdict_memo: {tmp_path / 'memo.sqlite'}}}\n"
    )
    assert main(["evolve", "--config", str(config), "--run-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "evaluation.verdict_memo" in err and "Traceback" not in err
    assert not (tmp_path / "run").exists() and not (tmp_path / "memo.sqlite").exists()
