"""The exported operating point: its README, provenance and manifest, and a standalone run done
exactly as its README says, against a local OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.execution.fakes.provider import fake_provider
from harnesspro.reports.export.harness import rename_manifest


@pytest.fixture(scope="module")
def exported(finished_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "medium"
    assert main(["export", str(finished_run), "--profile", "medium", "--out", str(out)]) == 0
    return out


def sh_blocks(readme: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", readme, re.S)


def test_readme_and_provenance_say_where_it_came_from(finished_run: Path, exported: Path) -> None:
    with sqlite3.connect(finished_run / "ledger.sqlite") as db:
        ((cid, pass_rate),) = db.execute(
            "SELECT candidate_id, pass_rate FROM selections WHERE mode = 'medium' "
            "AND epoch = (SELECT max(epoch) FROM selections)"
        ).fetchall()
        ((commit,),) = db.execute("SELECT commit_sha FROM candidates WHERE id = ?", (cid,))
        ((latency,),) = db.execute(
            "SELECT avg(latency_s) FROM rollouts WHERE candidate_id = ? AND split = 'coreset'",
            (cid,),
        )
    provenance = json.loads((exported / "provenance.json").read_text())
    assert provenance["candidate"] == cid and provenance["commit"] == commit
    assert provenance["run"] == finished_run.name and provenance["model"]["name"] == "scripted"
    assert provenance["coreset"]["pass_rate"] == pytest.approx(pass_rate)
    assert provenance["coreset"]["latency_s"] == pytest.approx(latency)
    assert provenance["held_out"]["versus_seed"] in {"seed", "better", "tie", "worse"}
    readme = (exported / "README.md").read_text()
    for fact in (cid, commit, finished_run.name, f"{pass_rate:.1%}", "nothing sandboxes"):
        assert fact in readme
    manifest = tomllib.loads((exported / "harness.toml").read_text())["harness"]
    assert manifest["name"] == "medium" and manifest["command"] == ["{python}", "-m", "agent"]


def test_rename_manifest_keeps_the_rest() -> None:
    text = '# mine\n[harness]\nname = "seed"  # x\ncommand = ["a"]\n[tool]\nname = "keep"\n'
    assert rename_manifest(text, "lite") == text.replace('"seed"', '"lite"')
    assert 'name = "lite"' in rename_manifest('[harness]\ncommand = ["a"]\n', "lite")


def test_exported_folder_runs_standalone_as_its_readme_says(exported: Path) -> None:
    setup, run = sh_blocks((exported / "README.md").read_text())
    with fake_provider([]) as provider:
        # The README's first block says what to export; here the endpoint is a local server.
        env = {
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            "HOME": os.environ.get("HOME", "/root"),
            "OPENAI_BASE_URL": provider.base_url,
            "OPENAI_API_KEY": "local-key",
            "HARNESSPRO_MODEL": "fake-model",
        }
        assert "export OPENAI_BASE_URL=" in setup and "export HARNESSPRO_MODEL=" in setup
        result = subprocess.run(
            ["bash", "-euc", run], cwd=exported, env=env, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
        assert provider.requests and provider.requests[0]["model"] == "fake-model"
    assert json.loads(result.stdout.splitlines()[-1])["status"] == "submitted"
    trajectory = (exported / "out" / "trajectory.jsonl").read_text().splitlines()
    assert [json.loads(line)["type"] for line in trajectory][:1] == ["model_call"]
