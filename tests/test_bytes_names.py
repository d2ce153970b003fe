"""File names that are not UTF-8: a harness may leave any bytes as a name in its workspace,
and the run must snapshot, score, report and resume it like any other name."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.core.fsnames import raw, shown
from harnesspro.evolution import epoch as evolution
from harnesspro.improvers.testsynth.facts import Reading, command_facts, snapshot_facts
from harnesspro.improvers.testsynth.offline import SeedRollout, SynthTest, score, synthesize
from harnesspro.run.context import seed_template
from harnesspro.run.disclosure import seed_view
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.snapshot import load, save, take, write
from tests.conftest import tiny_config

RAW = b"notes\xff.txt"
NAME = os.fsdecode(RAW)  # "notes\udcff.txt": byte 0xff as its surrogate escape
OTHER = os.fsdecode(b"notes\xfe.txt")
SEARCH_VERDICTS = "SELECT key, pass FROM rollouts WHERE split = 'coreset' ORDER BY key"


def workspace(root: Path, name: str = NAME) -> Path:
    """A working directory with `name` as a file, inside a folder, and as a link target."""
    (root / "docs").mkdir(parents=True)
    (root / "docs" / name).write_text("x\n")
    (root / "docs" / "index.md").write_text("# index\n")
    (root / name).write_text("top\n")
    os.symlink(name, root / "latest")
    return root


def test_raw_gives_the_bytes_back_and_shown_escapes_them() -> None:
    assert raw(NAME) == RAW and raw("naïve.txt") == "naïve.txt".encode()
    assert shown(NAME) == "notes\\xff.txt" and shown("naïve.txt") == "naïve.txt"
    shown(NAME).encode()  # printable: strict UTF-8 takes it


def test_a_snapshot_keeps_the_name_through_the_run_folder(tmp_path: Path) -> None:
    snap = take(workspace(tmp_path / "w"))
    assert snap[f"docs/{NAME}"] == b"x\n" and snap.links == {"latest": NAME}
    save(tmp_path / "saved", snap)
    (tmp_path / "saved" / "snapshot.json").read_text(encoding="ascii")  # escaped, not lost
    assert load(tmp_path / "saved") == snap
    again = write(tmp_path / "again", snap)
    assert RAW in os.listdir(os.fsencode(again / "docs")) and os.readlink(again / "latest") == NAME


def test_facts_of_a_folder_hash_the_names_bytes(tmp_path: Path) -> None:
    reading = Reading("/workspace", ("docs",))
    facts = snapshot_facts(take(workspace(tmp_path / "a")), reading, None)
    other = snapshot_facts(take(workspace(tmp_path / "b", OTHER)), reading, None)
    assert facts["kind:docs"] == "dir"
    assert facts["names:docs"] != other["names:docs"]  # two names, two digests
    save(tmp_path / "saved", take(tmp_path / "a"))
    assert snapshot_facts(load(tmp_path / "saved"), reading, None) == facts  # read back alike


def test_named_commands_run_on_a_workspace_with_the_name(tmp_path: Path) -> None:
    snap = take(workspace(tmp_path / "w"))
    lister = b"import os\nprint(sorted(os.listdir(b'/workspace/docs')))\n"
    snap = type(snap)({**snap.files, "list.py": lister}, snap.links, snap.modes, snap.dirs)
    command = "python3 /workspace/list.py"
    facts = command_facts(snap, Reading("/workspace", (), commands=(command,)), Bubblewrap())
    assert facts[f"exit:{command}"] == "0"


def test_an_offline_test_scores_a_workspace_read_back_from_disk(tmp_path: Path) -> None:
    instruction = "Put the notes under `/workspace/docs/` and link `/workspace/latest` to them."
    seed = [SeedRollout(take(workspace(tmp_path / "w")), "")] * 3
    test = SynthTest.from_json(synthesize("t", instruction, "/workspace", seed).to_json())
    save(tmp_path / "saved", seed[0].workspace)
    assert score(test, load(tmp_path / "saved"))
    assert not score(test, take(workspace(tmp_path / "o", OTHER)))


def test_the_synthesizer_sees_escaped_names(tmp_path: Path) -> None:
    view = seed_view(take(workspace(tmp_path / "w")), "")
    assert "docs/notes\\xff.txt" in view.files and view.links == {"latest": "notes\\xff.txt"}
    json.dumps(view.files, ensure_ascii=False).encode()  # no lone surrogate left


def naming_harness(tmp_path: Path) -> Path:
    """The seed agent, which also leaves `notes\\xff.txt` in every folder of the task's working
    directory (outside `.git/`) once it is done."""
    harness = tmp_path / "naming-harness"
    shutil.copytree(seed_template(), harness, ignore=shutil.ignore_patterns("__pycache__"))
    main_py = harness / "agent" / "__main__.py"
    run = '    Agent(config, task, os.environ["HARNESSPRO_OUT"]).run()\n'
    plant = (
        '    for folder, dirs, _ in os.walk(task["workdir"]):\n'
        '        dirs[:] = [d for d in dirs if d != ".git"]\n'
        f'        (Path(folder) / os.fsdecode({RAW!r})).write_text("x\\n")\n'
    )
    source = main_py.read_text()
    assert run in source
    main_py.write_text(source.replace(run, run + plant))
    return harness


def test_a_run_whose_harness_writes_a_non_utf8_name_completes_and_resumes(
    tmp_path: Path, ray_session: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after the seed's rollouts (where the name used to stop the run), the resume
    freezes the tests from the snapshots on disk and finishes; a rerun then has nothing to do."""
    config = tiny_config(
        tmp_path,
        coreset={"size": 2},
        evolution={"epochs": 1, "rollouts_per_task": 1},
        evaluation={"final": False, "validation_rollouts": 0},
        harness={"seed": str(naming_harness(tmp_path))},
    )
    run_dir = tmp_path / "run"
    argv = ["evolve", "--config", str(config), "--run-dir", str(run_dir)]

    def killed(*args: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(evolution, "freeze_tests", killed)
        with pytest.raises(KeyboardInterrupt):
            main(argv)
    assert [p for p in (run_dir / "rollouts").glob("*/workspace/*") if p.name == NAME]
    assert main(argv) == 0  # the resume reads the name back from every artifact
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        rollouts = db.execute(SEARCH_VERDICTS).fetchall()
    assert rollouts and all(passed is not None for _, passed in rollouts)
    assert main(argv) == 0
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        assert db.execute(SEARCH_VERDICTS).fetchall() == rollouts
