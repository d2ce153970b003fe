"""Faithful resume inside the improve step: a run killed (SIGKILL, by itself, at a named point
of epoch 1's improve step) and resumed ends with the plans, candidates and rollouts of an
uninterrupted run, and the resumed process plans nothing and redoes no finished edit."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import git
import pytest

from harnesspro.core import journal
from harnesspro.core.ledger import Ledger
from harnesspro.core.records import Candidate, Plan
from harnesspro.harness.repo import HarnessRepo
from harnesspro.run.context import seed_template
from tests.conftest import built_once, joined_ray_env, run_own_group, tiny_config

# Runs `harnesspro evolve` in this process with two hooks: it counts planning steps and edit
# attempts (worktrees started) into a JSON file, and at `point` it sends itself SIGKILL right
# after the named operation's first call returns - a real kill -9 at a known place.
RUNNER = """
import json, os, signal, sys
from harnesspro import cli
from harnesspro.evolution import improve
from harnesspro.harness.repo import HarnessRepo
from harnesspro.evolution.strategies import nsga2
from harnesspro.core.ledger import Ledger

point, calls_file, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
calls = {"make_plans": 0, "start_candidate": 0, "offspring_plans": 0}

def hooked(owner, name, kill):
    original = getattr(owner, name)
    def wrapper(*args, **kwargs):
        if name in calls:
            calls[name] += 1
            with open(calls_file, "w") as out:
                json.dump(calls, out)
        result = original(*args, **kwargs)
        if kill:
            os.kill(os.getpid(), signal.SIGKILL)
        return result
    setattr(owner, name, wrapper)

hooked(improve, "make_plans", point == "make_plans")
hooked(HarnessRepo, "start_candidate", False)
hooked(nsga2, "offspring_plans", False)
if point in ("commit_candidate", "record_edit"):
    hooked(HarnessRepo if point == "commit_candidate" else Ledger, point, True)
sys.exit(cli.main(["evolve", *argv]))
"""
# Two coreset tasks at G = 1 and no evaluation after the search: the improve step is what
# these tests kill, so the rollouts are kept few.
SMALL: dict[str, dict[str, object]] = {
    "coreset": {"size": 2},
    "evolution": {"epochs": 1, "rollouts_per_task": 1},
    "evaluation": {"final": False, "validation_rollouts": 0},
}
TABLES = {
    "plans": "SELECT epoch, parent_id, directive, mechanism, child_id, note FROM plans",
    "candidates": "SELECT id, tree, parent, directive, mechanism, epoch FROM candidates",
    "diagnoses": "SELECT epoch, candidate_id, task_id, kind, count FROM diagnoses",
    "rollouts": "SELECT key, status, pass, official_pass, cost, split FROM rollouts",
    "selections": "SELECT epoch, mode, candidate_id FROM selections",
}


def evolve(
    tmp: Path, run_dir: Path, point: str, env: dict[str, str], **sections: dict[str, object]
) -> tuple[subprocess.CompletedProcess[str], dict]:
    """One `evolve` through the runner, in `env` (joining the test worker's Ray); returns it
    and its counted calls."""
    sections = {**SMALL, **sections}
    config = tiny_config(tmp, **sections)
    calls = tmp / f"calls-{point}.json"
    argv = ["--config", str(config), "--run-dir", str(run_dir)]
    done = run_own_group([sys.executable, "-c", RUNNER, point, str(calls), *argv], env=env)
    return done, json.loads(calls.read_text()) if calls.exists() else {}


def tables(run_dir: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        return {name: sorted(db.execute(sql).fetchall(), key=repr) for name, sql in TABLES.items()}


@pytest.fixture(scope="module")
def uninterrupted(request: pytest.FixtureRequest) -> dict[str, list[tuple[object, ...]]]:
    def build(tmp: Path) -> None:
        done, _ = evolve(tmp, tmp / "run", "none", joined_ray_env())
        assert done.returncode == 0, done.stderr[-2000:]

    return tables(built_once(request, "resume-improve-clean", build) / "run")


@pytest.mark.slow
def test_kills_inside_improve_resume_the_same_step(
    tmp_path: Path,
    uninterrupted: dict[str, list[tuple[object, ...]]],
    ray_env: dict[str, str],
) -> None:
    """Two kills in a row, each resumed: first right after the first child is committed in
    git (not in the ledger yet), then, in the resumed process, right after that edit is
    recorded. Each resume re-plans nothing and redoes no recorded edit, and the run that
    survives both ends as the uninterrupted one."""
    run_dir = tmp_path / "run"
    killed, calls = evolve(tmp_path, run_dir, "commit_candidate", ray_env)
    assert killed.returncode == -9, killed.stderr[-2000:]  # it died at the hook
    assert calls["make_plans"] == 1  # killed in epoch 1's improve step (the only one)
    assert calls["start_candidate"] == 1  # ... inside its first edit
    # The half-made child is in git only: its edit is redone (once), then recorded.
    killed, calls = evolve(tmp_path, run_dir, "record_edit", ray_env)
    assert killed.returncode == -9, killed.stderr[-2000:]
    assert calls.get("make_plans", 0) == 0  # nothing re-planned
    assert calls["start_candidate"] == 1
    resumed, calls = evolve(tmp_path, run_dir, "none", ray_env)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert tables(run_dir) == uninterrupted
    assert "journaled plans reused" in resumed.stdout
    assert calls.get("make_plans", 0) == 0  # nothing re-planned
    assert calls["start_candidate"] == 2  # the recorded edit is not redone: two are left


def test_journaled_plans_and_edits_read_back_as_recorded(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    free = Plan(
        "c000", "balanced", "check_first", "why", 0.1, -0.2, kind="free",
        levers=("prompt",), change="check the files first", files=("agent.py",),
        expected_flips=("t1", "t2"), scope="domain",
    )  # fmt: skip
    catalog = Plan("c000", "cost-first", "concise_prompt", "shorter", 0.0, -0.3)
    assert journal.journaled_plans(ledger, 1) is None
    ledger.journal(1, journal.PLANS, journal.plans_text([free, catalog]))
    assert journal.journaled_plans(ledger, 1) == [free, catalog]
    child = Candidate("c001", "abc", "tree1", "c000", "balanced", "check_first", 1)
    ledger.record_edit(1, journal.edit_step(0), free, child, "c001", "")
    ledger.record_edit(1, journal.edit_step(1), catalog, None, None, "discarded: no effect")
    assert journal.journaled_edit(ledger, 1, 0) == journal.JournaledEdit("c001", "")
    assert journal.journaled_edit(ledger, 1, 1) == journal.JournaledEdit(
        None, "discarded: no effect"
    )
    assert journal.journaled_edit(ledger, 1, 2) is None
    assert [c.id for c in ledger.candidates()] == ["c001"]
    plans = ledger.plans().set_index("directive")
    assert plans.loc["balanced", "child_id"] == "c001"
    assert plans.loc["cost-first", "note"] == "discarded: no effect"


def test_a_worktree_a_kill_left_half_added_is_replaced(tmp_path: Path) -> None:
    """`git worktree add` killed mid-way leaves its worktree locked ("initializing") and maybe
    no folder; after `recover` the same candidate id can be started again."""
    repo = HarnessRepo(tmp_path / "harness", tmp_path / "worktrees")
    commit, _ = repo.commit_seed(seed_template())
    repo.start_candidate("c001", commit)
    admin = tmp_path / "harness" / ".git" / "worktrees" / "c001"
    (admin / "locked").write_text("initializing\n")
    shutil.rmtree(tmp_path / "worktrees" / "c001")
    (tmp_path / "harness" / ".git" / "refs" / "heads" / "cand" / "c001.lock").touch()
    with pytest.raises(git.GitCommandError):  # what a resumed run met before `recover`
        repo.start_candidate("c001", commit)
    repo.recover()
    path = repo.start_candidate("c001", commit)
    assert (path / "harness.yaml").is_file()


NSGA2 = {
    "evolution": {"epochs": 1, "rollouts_per_task": 1, "strategy": "nsga2"},
    "evaluation": {"final": False, "validation_rollouts": 0, "max_rollouts": 6},
}


@pytest.mark.slow
def test_a_killed_nsga2_epoch_resumes_without_redrawing_its_offspring(
    tmp_path: Path, ray_env: dict[str, str]
) -> None:
    clean = tmp_path / "clean"
    clean.mkdir()
    done, _ = evolve(clean, clean / "run", "none", ray_env, **NSGA2)
    assert done.returncode == 0, done.stderr[-2000:]
    run_dir = tmp_path / "run"
    killed, calls = evolve(tmp_path, run_dir, "record_edit", ray_env, **NSGA2)
    assert killed.returncode == -9, killed.stderr[-2000:]
    assert calls["offspring_plans"] == 1
    resumed, calls = evolve(tmp_path, run_dir, "none", ray_env, **NSGA2)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert tables(run_dir) == tables(clean / "run")
    assert calls.get("offspring_plans", 0) == 0  # the journaled offspring are reused
