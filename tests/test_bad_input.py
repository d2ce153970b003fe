"""Bad input (issue 27, item 6): malformed task files, out-of-range config numbers, YAML alias
bombs, damaged or lost ledgers each end in one sentence and exit 2; the dashboard of a run
whose first epoch is still running shows what exists."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from harnesspro.cli import main
from harnesspro.core.config import load_config
from harnesspro.core.yamlio import YamlTooLarge, load_bounded
from harnesspro.run.context import RunContext
from harnesspro.run.folder import RunFolder
from harnesspro.tasks.loader import load_suite, load_task, task_files
from tests.conftest import COMMANDS, record, tiny_config, trajectory


def fails_in_one_sentence(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the CLI; it must exit 2 with one line on stderr and no traceback."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("harnesspro: "), err
    assert "Traceback" not in err
    return err


def harbor(root: Path, name: str, toml: str) -> Path:
    """A minimal Harbor task folder whose task.toml is `toml`."""
    folder = root / name
    (folder / "tests").mkdir(parents=True)
    (folder / "task.toml").write_text(toml)
    (folder / "instruction.md").write_text("Write `hello` to out.txt.\n")
    (folder / "tests" / "test.sh").write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
    return folder


BAD_TASK_FILES = {
    "timeout_sec = 'abc'": ("[agent]\ntimeout_sec = 'abc'\n", "agent.timeout_sec"),
    "agent = 5": ("agent = 5\n", "`agent`"),
    "metadata = [1, 2]": ("metadata = [1, 2]\n", "`metadata`"),
    "harnesspro = 5": ("harnesspro = 5\n", "`harnesspro`"),
    "verifier nan": ("[verifier]\ntimeout_sec = nan\n", "verifier.timeout_sec"),
    "agent inf": ("[agent]\ntimeout_sec = inf\n", "agent.timeout_sec"),
    "agent a year": ("[agent]\ntimeout_sec = 31536000\n", "agent.timeout_sec"),
    "verifier negative": ("[verifier]\ntimeout_sec = -1\n", "verifier.timeout_sec"),
}


@pytest.mark.parametrize("case", BAD_TASK_FILES)
def test_a_malformed_task_toml_is_one_sentence(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toml, field = BAD_TASK_FILES[case]
    folder = harbor(tmp_path, "bad", toml)
    err = fails_in_one_sentence(["tasks", "validate", str(folder)], capsys)
    assert str(folder / "task.toml") in err and field in err and "fix it" in err


def test_a_bad_task_in_a_suite_is_skipped_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    harbor(tmp_path, "good", "[agent]\ntimeout_sec = 60\n[metadata]\ncategory = 7\n")
    for n, (toml, _) in enumerate(BAD_TASK_FILES.values()):
        harbor(tmp_path, f"bad{n}", toml)
    (good,) = load_suite(str(tmp_path))
    assert (good.id, good.timeout_s, good.category) == ("good", 60.0, "7")
    skipped = capsys.readouterr().err.splitlines()
    assert len(skipped) == len(BAD_TASK_FILES)
    assert all(line.startswith("skipping task: ") and "fix it" in line for line in skipped)


def test_a_terminal_bench_task_yaml_is_checked_too(tmp_path: Path) -> None:
    folder = tmp_path / "tb"
    folder.mkdir()
    (folder / "task.yaml").write_text("instruction: hi\nmax_test_timeout_sec: .nan\n")
    (folder / "run-tests.sh").write_text("")
    (folder / "Dockerfile").write_text("FROM ubuntu:24.04\n")
    with pytest.raises(ValueError, match="max_test_timeout_sec"):
        load_task(folder)


def test_checked_timeouts_reach_the_agent_and_the_verifier(tmp_path: Path) -> None:
    folder = harbor(tmp_path, "ok", "[agent]\ntimeout_sec = 90\n[verifier]\ntimeout_sec = 45\n")
    task = load_task(folder)
    assert (task.timeout_s, task_files(task).verifier_timeout_s) == (90.0, 45.0)


# -- the run config ---------------------------------------------------------------------------

BAD_CONFIG = {
    "price .inf": ({"prices": {"scripted": {"input": 1.0, "output": float("inf")}}}, "prices"),
    "memory_mb 1e15": ({"sandbox": {"memory_mb": 10**15}}, "sandbox.memory_mb"),
    "timeout_s 1e400": ({"sandbox": {"timeout_s": float("inf")}}, "sandbox.timeout_s"),
    "timeout_s nan": ({"sandbox": {"timeout_s": float("nan")}}, "sandbox.timeout_s"),
    "rollouts_per_task 1e12": (
        {"evolution": {"epochs": 1, "rollouts_per_task": 10**12}},
        "evolution.rollouts_per_task",
    ),
    "rollout budget .inf": (
        {"gateway": {"rollout_budget": {"max_dollars": float("inf")}}},
        "gateway.rollout_budget.max_dollars",
    ),
    "latency .inf": (
        {"model": {"name": "scripted", "latency": {"tokens_per_s": [1.0, float("inf")]}}},
        "model.latency.tokens_per_s",
    ),
}


@pytest.mark.parametrize("case", BAD_CONFIG)
def test_an_out_of_range_config_number_is_one_sentence(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sections, field = BAD_CONFIG[case]
    config = tiny_config(tmp_path, **sections)
    run_dir = tmp_path / "run"
    err = fails_in_one_sentence(
        ["evolve", "--config", str(config), "--run-dir", str(run_dir)], capsys
    )
    assert str(config) in err and field in err and not run_dir.exists()


@pytest.mark.parametrize("value", ["[", "1e400", ".nan"])
def test_a_bad_set_override_is_one_sentence(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tiny_config(tmp_path)
    argv = ["evolve", "--config", str(config), "--set", f"sandbox.timeout_s={value}"]
    err = fails_in_one_sentence([*argv, "--run-dir", str(tmp_path / "run")], capsys)
    assert "sandbox.timeout_s" in err


def alias_bomb(levels: int = 9) -> str:
    """A list whose aliases expand to 10**levels strings."""
    parts = ["&a0 [x, x, x, x, x, x, x, x, x, x]"]
    parts += [f"&a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels)]
    return f"[{', '.join(parts)}]"


def test_a_yaml_alias_bomb_in_the_config_is_refused_not_a_hang(tmp_path: Path) -> None:
    config = tiny_config(tmp_path)
    config.write_text(config.read_text() + f"tasks:\n  suite: {alias_bomb()}\n")
    argv = [sys.executable, "-m", "harnesspro", "evolve", "--config", str(config)]
    argv += ["--run-dir", str(tmp_path / "run")]
    # Before the bound this hung in path resolution: a subprocess bounds the test instead.
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1 and "aliases expand" in err and str(config) in err


def test_load_bounded_refuses_self_reference_and_keeps_shared_values() -> None:
    with pytest.raises(YamlTooLarge, match="refers to the value"):
        load_bounded("a: &a [1, *a]\n")
    assert load_bounded("x: &x {k: 1}\ny: *x\nz: {<<: *x, m: 2}\n") == {
        "x": {"k": 1},
        "y": {"k": 1},
        "z": {"k": 1, "m": 2},
    }


# -- damaged, foreign and lost ledgers ---------------------------------------------------------


@pytest.fixture
def seeded_run(tmp_path: Path) -> tuple[Path, Path]:
    """(config, run folder): a run in its first epoch, the seed's coreset rollouts recorded by
    hand (no Ray), its ledger closed."""
    config_path = tiny_config(tmp_path)
    run = RunFolder(tmp_path / "run")
    ctx = RunContext.open(load_config(config_path), run, Console(record=True, width=300))
    ctx.seed()
    for n, task_id in enumerate(ctx.splits.coreset):
        for attempt in (0, 1):
            text = trajectory(COMMANDS)
            record(ctx, f"k{n}{attempt}", task_id, "coreset", text, attempt == 0, attempt)
    ctx.ledger.close()
    return config_path, run.root


def commands(config: Path, run: Path, out: Path) -> dict[str, list[str]]:
    """Every command that opens a run's ledger."""
    return {
        "report": ["report", str(run)],
        "points": ["points", str(run)],
        "dashboard": ["dashboard", str(run), "--out", str(out / "d.html")],
        "export": ["export", str(run), "--point", "lite", "--out", str(out / "x")],
        "export-trajectories": ["export-trajectories", str(run), "--out", str(out / "t.jsonl")],
        "eval": ["eval", str(run)],
        "evolve": ["evolve", "--config", str(config), "--run-dir", str(run)],
    }


def truncate(ledger: Path) -> None:
    data = ledger.read_bytes()
    assert len(data) > 3 * 4096  # more pages than we keep
    ledger.write_bytes(data[: 2 * 4096])


def overwrite(ledger: Path) -> None:
    ledger.write_text("notes I saved over the ledger\n")


def foreign(ledger: Path) -> None:
    ledger.unlink()
    db = sqlite3.connect(ledger)
    db.execute("CREATE TABLE users (id INTEGER)")
    db.commit()
    db.close()


@pytest.mark.parametrize("damage", [truncate, overwrite, foreign])
@pytest.mark.parametrize(
    "command",
    ["report", "points", "dashboard", "export", "export-trajectories", "eval", "evolve"],
)
def test_a_damaged_or_foreign_ledger_is_recognised_at_open(
    command: str,
    damage: object,
    seeded_run: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config, run = seeded_run
    assert callable(damage)
    damage(run / "ledger.sqlite")
    err = fails_in_one_sentence(commands(config, run, tmp_path)[command], capsys)
    assert "ledger.sqlite is not a HarnessPro ledger or is damaged: " in err


def test_an_empty_ledger_next_to_saved_rollouts_is_refused_not_rebilled(
    seeded_run: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, run = seeded_run
    (run / "ledger.sqlite").write_bytes(b"")  # an empty file is an empty SQLite database
    for argv in (["evolve", "--config", str(config), "--run-dir", str(run)], ["eval", str(run)]):
        err = fails_in_one_sentence(argv, capsys)
        assert "ledger.sqlite is empty" in err and "holds 6 rollouts" in err
    db = sqlite3.connect(run / "ledger.sqlite")
    assert db.execute("SELECT count(*) FROM rollouts").fetchone() == (0,)  # nothing re-ran
    db.close()


def test_the_dashboard_of_a_run_in_its_first_epoch_shows_what_exists(
    seeded_run: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, run = seeded_run
    out = tmp_path / "dash.html"
    assert main(["dashboard", str(run), "--out", str(out)]) == 0
    assert capsys.readouterr().err == ""
    html = out.read_text()
    assert "no finished epoch yet" in html and "status: running" in html
    assert 'id="heatmap"' in html  # the seed's scored rollouts are drawn
