"""Split manifests: content hashes per task, refusal on any change, and the writing commands."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from harnesspro.cli.tasks import register
from harnesspro.tasks.loader import load_suite
from harnesspro.tasks.manifest import (
    ManifestError,
    build_manifest,
    manifest_splits,
    open_manifest,
    read_manifest,
    task_hash,
    verify_manifest,
    write_manifest,
)
from harnesspro.tasks.splits import make_splits

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A private copy of six built-in tasks, free to modify."""
    dest = tmp_path / "suite"
    for task in load_suite("builtin")[:6]:
        shutil.copytree(task.path, dest / task.id)
    return dest


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harnesspro")
    handlers = register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return handlers[args.command](args, Console(width=200))


def first_file(folder: Path) -> Path:
    return sorted(p for p in folder.rglob("*") if p.is_file())[0]


def test_task_hash_covers_every_file_and_ignores_bytecode(suite: Path) -> None:
    folder = next(suite.iterdir())
    before = task_hash(folder)
    assert set(before.files) == {
        str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()
    }
    (folder / "tests" / "__pycache__").mkdir()
    (folder / "tests" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert task_hash(folder) == before
    (folder / "notes.md").write_text("extra")
    assert task_hash(folder).digest != before.digest


def test_round_trip_and_verify(suite: Path, tmp_path: Path) -> None:
    tasks = load_suite(str(suite))
    splits = {"train": (tasks[0].id, tasks[1].id), "test": (tasks[2].id,)}
    manifest = build_manifest(str(suite), tasks, splits, {"seed": 0})
    write_manifest(manifest, tmp_path / "m.json")
    again = read_manifest(tmp_path / "m.json")
    assert again == manifest
    assert again.task_ids == tuple(sorted(t.id for t in tasks[:3]))
    verify_manifest(again, suite)
    # A task the manifest does not list may change freely.
    (suite / tasks[4].id / "instruction.md").write_text("changed")
    verify_manifest(again, suite)


@pytest.mark.parametrize("edit", ["one_byte", "add", "remove"])
def test_any_change_to_a_listed_task_is_refused_naming_task_and_file(
    suite: Path, tmp_path: Path, edit: str
) -> None:
    tasks = load_suite(str(suite))
    victim = tasks[1]
    manifest = build_manifest(str(suite), tasks, {"train": tuple(t.id for t in tasks)}, {})
    target = first_file(victim.path)
    rel = str(target.relative_to(victim.path))
    if edit == "one_byte":
        data = bytearray(target.read_bytes())
        data[0] ^= 1
        target.write_bytes(bytes(data))
        expected = f"{rel} modified"
    elif edit == "add":
        (victim.path / "tests" / "extra.txt").write_text("x")
        expected = "tests/extra.txt added"
    else:
        target.unlink()
        expected = f"{rel} removed"
    with pytest.raises(ManifestError) as caught:
        verify_manifest(manifest, suite, "m.json")
    message = str(caught.value)
    assert f"task '{victim.id}' changed" in message and expected in message
    assert message.startswith("m.json: ") and message.count(".") >= 1 and "\n" not in message


def test_open_manifest_checks_the_suite_then_every_task(suite: Path, tmp_path: Path) -> None:
    tasks = load_suite(str(suite))
    path = tmp_path / "m.json"
    write_manifest(build_manifest(str(suite), tasks, {"test": (tasks[0].id,)}, {}), path)
    assert open_manifest(path, str(suite)).splits == {"test": (tasks[0].id,)}
    with pytest.raises(ManifestError, match="written for suite"):
        open_manifest(path, "builtin")
    (tasks[0].path / "task.toml").write_text("changed")
    with pytest.raises(ManifestError, match=f"m.json: task '{tasks[0].id}' changed"):
        open_manifest(path, str(suite))


def test_missing_task_is_refused(suite: Path) -> None:
    tasks = load_suite(str(suite))
    manifest = build_manifest(str(suite), tasks, {"test": (tasks[0].id,)}, {})
    shutil.rmtree(tasks[0].path)
    with pytest.raises(ManifestError, match=f"task '{tasks[0].id}' is missing"):
        verify_manifest(manifest, suite)


def test_unreadable_manifests(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no such manifest"):
        read_manifest(tmp_path / "absent.json")
    (tmp_path / "bad.json").write_text('{"format": 1, "tasks": {}}')
    with pytest.raises(ManifestError, match="not a valid split manifest"):
        read_manifest(tmp_path / "bad.json")


def test_split_command_writes_a_verifiable_manifest(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "split.json"
    argv = ["tasks", "split", str(suite), "--test-fraction", "0.34", "--seed", "3", "--out"]
    assert run_cli([*argv, str(out)]) == 0
    manifest = read_manifest(out)
    tasks = load_suite(str(suite))
    expected = make_splits(tasks, 0.34, 3, 0)
    assert manifest.splits == {"train": expected.validation, "test": expected.test}
    assert len(manifest.splits["test"]) == 2
    assert set(manifest.hashes) == {t.id for t in tasks}
    verify_manifest(manifest, suite)
    assert json.loads(out.read_text())["settings"] == {"test_fraction": 0.34, "seed": 3}


def test_coreset_command_matches_make_splits(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "core.json"
    assert run_cli(["coreset", "--tasks", str(suite), "--size", "2", "--out", str(out)]) == 0
    expected = make_splits(load_suite(str(suite)), 0.25, 0, 2)
    manifest = read_manifest(out)
    assert manifest_splits(manifest) == expected
    # A refusal says how to write the manifest again.
    (suite / expected.coreset[0] / "instruction.md").write_text("changed")
    with pytest.raises(ManifestError, match=r"re-run `harnesspro coreset --tasks .* --size 2 "):
        verify_manifest(manifest, suite)


def test_user_errors_exit_2_with_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["coreset", "--tasks", str(tmp_path / "x"), "--size", "2", "--out", "o"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("harnesspro: ") and err.count("\n") == 1
    (tmp_path / "empty").mkdir()
    argv = ["tasks", "split", str(tmp_path / "empty"), "--test-fraction", "0.2", "--seed", "0"]
    assert run_cli([*argv, "--out", str(tmp_path / "o.json")]) == 2
    with pytest.raises(SystemExit) as caught:
        run_cli([*argv[:3], "--test-fraction", "1.5", "--seed", "0", "--out", "o.json"])
    assert caught.value.code == 2


def test_committed_coresets_match_the_builtin_suite() -> None:
    """coresets/*.json are manifests: a change to a listed built-in task must refresh them."""
    committed = sorted((ROOT / "coresets").glob("*.json"))
    assert committed, "coresets/quickstart.json is missing"
    for path in committed:
        manifest = open_manifest(path, "builtin")
        assert len(manifest_splits(manifest).coreset) == manifest.settings["coreset_size"]
