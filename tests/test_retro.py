"""Retrospective mode: recorded sessions -> diagnoses -> plans -> a validated candidate, with
no rollout started."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.harness.validate import validate_harness
from harnesspro.improvers.retro.run import diagnose
from harnesspro.improvers.retro.sessions import HarnessProChat, MiniSweAgent, read_sessions
from harnesspro.run.context import seed_template

BIG = "line\n" * 600  # 3,000 characters: a long tool output


def mini_traj(folder: Path, fenced: bool) -> Path:
    """A mini-swe-agent trajectory: system, task, two commands (one with a long output), done."""
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Sort /workspace/in.txt into out.txt"},
    ]
    for n, (command, output) in enumerate([("cat in.txt", BIG), ("sort in.txt > out.txt", "")]):
        if fenced:
            messages.append({"role": "assistant", "content": f"THOUGHT\n```bash\n{command}\n```"})
            messages.append({"role": "user", "content": output})
        else:
            arguments = json.dumps({"command": command})
            call = {"id": f"c{n}", "function": {"name": "bash", "arguments": arguments}}
            messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": output})
    messages.append({"role": "assistant", "content": "Done."})
    data = {
        "info": {
            "model_stats": {"instance_cost": 0.02, "api_calls": 3},
            "exit_status": "Submitted",
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
    }
    path = folder / f"{'fenced' if fenced else 'tools'}.traj.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("fenced", [False, True])
def test_mini_swe_agent_sessions_become_trajectories(tmp_path: Path, fenced: bool) -> None:
    path = mini_traj(tmp_path, fenced)
    assert MiniSweAgent().matches(path) and not HarnessProChat().matches(path)
    session = MiniSweAgent().read(path)
    events = [json.loads(line) for line in session.trajectory.splitlines()]
    assert [e["command"] for e in events if e["type"] == "tool_call"] == [
        "cat in.txt", "sort in.txt > out.txt",
    ]  # fmt: skip
    results = [e for e in events if e["type"] == "tool_result"]
    assert results[0]["chars"] == len(BIG) and len(results) == 2
    assert [e["type"] for e in events][-2:] == ["model_call", "submit"]
    assert (session.cost, session.n_calls, session.passed) == (0.02, 3, None)
    assert session.instruction == "Sort /workspace/in.txt into out.txt"
    kinds = {d.kind for d in diagnose([session])}
    assert "long_tool_output" in kinds  # behaviour is analysed ...
    assert not kinds & {"task_failures", "unrecovered_errors"}  # ... verdicts are not invented


def test_retro_refuses_a_folder_without_sessions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["retro", "--sessions", str(tmp_path), "--harness", str(seed_template())]
    assert main([*args, "--out", str(tmp_path / "out")]) == 2
    assert "no sessions found" in capsys.readouterr().err
    assert read_sessions(tmp_path, [MiniSweAgent()]) == []


def rollout_count(run_dir: Path) -> int:
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        return int(db.execute("SELECT count(*) FROM rollouts").fetchone()[0])


@pytest.mark.slow
def test_retro_on_a_finished_run_plans_and_validates_without_rollouts(
    finished_tiny_run: Path, tmp_path: Path
) -> None:
    before = rollout_count(finished_tiny_run)
    out = tmp_path / "retro"
    sessions = finished_tiny_run / "rollouts"
    args = ["retro", "--sessions", str(sessions), "--harness", str(seed_template())]
    assert main([*args, "--out", str(out)]) == 0
    assert rollout_count(finished_tiny_run) == before  # no rollout was started
    report = json.loads((out / "retro.json").read_text())
    assert report["sessions"] == before  # one session per recorded rollout's chat log
    assert report["with_verdict"] == 0 and report["diagnoses"]
    plans = [p["plan"] for p in report["proposals"]]
    assert {p["directive"] for p in plans} == {"cost-first", "balanced", "performance-first"}
    made = [p["candidate"] for p in report["proposals"] if p["candidate"]]
    assert made  # at least one candidate passed the gates ...
    for folder in made:  # ... and is a valid harness on its own
        assert validate_harness(out / folder, seed_template()) == ""


@pytest.mark.slow
def test_retro_with_the_llm_improver_meters_its_calls(
    finished_tiny_run: Path, tmp_path: Path
) -> None:
    # The scripted search model stands in for the improver model (no credentials needed).
    before = rollout_count(finished_tiny_run)
    out = tmp_path / "retro"
    args = ["retro", "--sessions", str(finished_tiny_run / "rollouts"), "--harness"]
    assert main([*args, str(seed_template()), "--out", str(out), "--improver", "llm"]) == 0
    assert rollout_count(finished_tiny_run) == before
    report = json.loads((out / "retro.json").read_text())
    assert report["fallbacks"] == {}  # every role answered as the model
    with sqlite3.connect(out / "search.sqlite") as db:
        roles = dict(db.execute("SELECT role, count(*) FROM search_calls GROUP BY 1").fetchall())
    assert roles["analyzer"] >= 1 and roles["planner"] >= 1
    # The llm planner may propose free-form changes; each was validated like any candidate.
    made = [p["candidate"] for p in report["proposals"] if p["candidate"]]
    assert made and len(report["proposals"]) == 3
    for folder in made:
        assert validate_harness(out / folder, seed_template()) == ""
    # --config belongs to the llm improver only: one sentence, exit 2, nothing written.
    unused = tmp_path / "unused"
    assert main([*args, str(seed_template()), "--out", str(unused), "--config", "x.yaml"]) == 2
    assert not unused.exists()
