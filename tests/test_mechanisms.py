"""Every catalog mechanism, shown in a real trajectory: seed + mechanism in the sandbox,
driven by recorded replies through the gateway."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from harnesspro.core.records import RolloutResult
from harnesspro.execution.gateway.upstream import ReplayUpstream
from harnesspro.execution.rollout import run_rollout
from harnesspro.harness.mechanisms.catalog import CATALOG, LEVERS
from harnesspro.run.context import seed_template
from tests.conftest import inputs_for_harness


def call(command: str, n: int, arguments: str | None = None) -> dict[str, Any]:
    args = arguments if arguments is not None else json.dumps({"command": command})
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": f"c{n}", "type": "function", "function": {"name": "bash", "arguments": args}}
        ],
    }


def calls(commands: list[str]) -> list[dict[str, Any]]:
    return [call(c, n) for n, c in enumerate(commands)]


def rollout(
    tmp_path: Path, mechanisms: list[str], replies: list[dict[str, Any]]
) -> tuple[RolloutResult, ReplayUpstream]:
    harness = tmp_path / "harness"
    shutil.copytree(seed_template(), harness, ignore=shutil.ignore_patterns("__pycache__"))
    for name in mechanisms:
        CATALOG[name].apply(harness)
        assert CATALOG[name].validate(harness) == ""
    upstream = ReplayUpstream(replies)
    result = run_rollout(inputs_for_harness(harness), upstream)
    assert result.status == "ok", result.reason + result.detail
    return result, upstream


def tool_results(upstream: ReplayUpstream) -> list[str]:
    last = upstream.requests[-1]["messages"]
    return [m["content"] for m in last if m["role"] == "tool"]


def events(result: RolloutResult, kind: str) -> list[dict[str, Any]]:
    return [e for e in map(json.loads, result.trajectory.splitlines()) if e["type"] == kind]


def test_catalog_covers_every_lever_and_the_required_mechanisms() -> None:
    assert len(CATALOG) >= 10
    assert {m.lever for m in CATALOG.values()} == set(LEVERS)
    for required in (
        "budget_notices",
        "profile_routing",
        "compress_output",
        "concise_prompt",
        "verify_before_submit",
        "empty_submission_guard",
    ):
        assert required in CATALOG


def test_budget_notices_6_9_14_and_the_prefix_stays_identical(tmp_path: Path) -> None:
    result, upstream = rollout(
        tmp_path, ["budget_notices"], calls([f"echo {i}" for i in range(1, 30)])
    )
    results = tool_results(upstream)
    noticed = [i + 1 for i, text in enumerate(results) if "[notice]" in text]
    assert noticed == [6, 9]
    assert results[5].startswith("6\n") and results[5].rstrip().endswith("avoid redundant checks.")
    assert all(r.startswith("Tool call blocked") for r in results[14:])
    assert results[13] == "14\n"
    # Notices ride at the end of tool results: each request extends the previous one exactly.
    for before, after in zip(upstream.requests, upstream.requests[1:], strict=False):
        n = len(before["messages"])
        assert json.dumps(after["messages"][:n]) == json.dumps(before["messages"])


def test_tight_budget_notices(tmp_path: Path) -> None:
    _, upstream = rollout(
        tmp_path, ["tight_budget_notices"], calls([f"echo {i}" for i in range(20)])
    )
    results = tool_results(upstream)
    assert [i + 1 for i, t in enumerate(results) if "[notice]" in t] == [4, 8]
    assert results[16].startswith("Tool call blocked") and not results[15].startswith("Tool call")


def test_compression_shortens_a_10000_line_output(tmp_path: Path) -> None:
    _, plain = rollout(tmp_path / "a", [], calls(["seq 1 10000", "yes same | head -n 500"]))
    _, packed = rollout(
        tmp_path / "b", ["compress_output"], calls(["seq 1 10000", "yes same | head -n 500"])
    )
    long_plain, long_packed = tool_results(plain)[0], tool_results(packed)[0]
    assert len(long_plain) > 48_000 and len(long_packed) < 2_000
    assert long_packed.startswith("1\n2\n") and long_packed.rstrip().endswith("10000")
    assert "9960 lines" in long_packed
    assert tool_results(packed)[1].strip() == "same  [repeated 500 times]"


def first_request(tmp_path: Path, mechanisms: list[str]) -> dict[str, Any]:
    _, upstream = rollout(tmp_path, mechanisms, calls(["true"]))
    return upstream.requests[0]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("concise_prompt", "Be concise"),
        ("verify_before_submit", "verify your work"),
        ("skim_inputs", "instead of `cat`"),
    ],
)
def test_prompt_mechanisms_reach_the_system_prompt(
    tmp_path: Path, name: str, expected: str
) -> None:
    system = first_request(tmp_path, [name])["messages"][0]["content"]
    seed_system = first_request(tmp_path / "seed", [])["messages"][0]["content"]
    assert expected in system and expected not in seed_system
    if name == "concise_prompt":
        assert len(system) < len(seed_system) / 2


@pytest.mark.parametrize(
    "name, effort", [("high_effort", "high"), ("low_effort", "low"), ("profile_routing", "low")]
)
def test_reasoning_effort_in_every_request(tmp_path: Path, name: str, effort: str) -> None:
    assert first_request(tmp_path, [name])["reasoning_effort"] == effort
    assert "reasoning_effort" not in first_request(tmp_path / "seed", [])


def test_profile_routing_sets_a_tool_budget_for_short_tasks(tmp_path: Path) -> None:
    result, upstream = rollout(
        tmp_path, ["profile_routing"], calls([f"echo {i}" for i in range(15)])
    )
    assert tool_results(upstream)[12].startswith("Tool call blocked")
    assert any(e.get("name") == "profile" for e in events(result, "hook"))


BUILTIN = Path(__file__).resolve().parents[1] / "harnesspro" / "tasks" / "builtin"


@pytest.mark.parametrize(
    ("task", "routed"),
    [("sales_by_region", True), ("git_init_release", True), ("fix_roman_converter", False)],
)
def test_profile_routing_reads_what_the_description_says(
    tmp_path: Path, task: str, routed: bool
) -> None:
    """Descriptions far over 60 words: a csv or a git task is routed, a bug fix is not (its
    text contains "digit", not "git ")."""
    instruction = (BUILTIN / task / "instruction.md").read_text()
    assert len(instruction.split()) > 60
    harness = tmp_path / "harness"
    shutil.copytree(seed_template(), harness, ignore=shutil.ignore_patterns("__pycache__"))
    CATALOG["profile_routing"].apply(harness)
    inputs = inputs_for_harness(harness)
    inputs = dataclasses.replace(inputs, task_json={**inputs.task_json, "instruction": instruction})
    upstream = ReplayUpstream(calls(["true"]))
    result = run_rollout(inputs, upstream)
    assert any(e.get("name") == "profile" for e in events(result, "hook")) == routed
    assert (upstream.requests[0].get("reasoning_effort") == "low") == routed


def test_failure_hints_follow_failed_commands_only(tmp_path: Path) -> None:
    """A typo'd command (bash: command not found) and a silent non-zero exit get the hint; a
    command that worked does not."""
    _, upstream = rollout(
        tmp_path, ["failure_hints"], calls(["pyhton3 --version", "false", "echo fine"])
    )
    typo, silent, fine = tool_results(upstream)
    assert "command not found" in typo and typo.endswith("fix the error and run it again.")
    assert silent.startswith("(no output, exit code 1)") and "[hint]" in silent
    assert fine.strip() == "fine"


def test_the_seed_warns_three_steps_before_its_cap(tmp_path: Path) -> None:
    # Retired from the catalog (it never fired at the seed's 50 steps on the built-in suite),
    # the hook stays in the seed for users' configs.
    harness = tmp_path / "harness"
    shutil.copytree(seed_template(), harness, ignore=shutil.ignore_patterns("__pycache__"))
    config = yaml.safe_load((harness / "harness.yaml").read_text())
    config["max_steps"] = 12
    config["hooks"]["on_step"] = [{"use": "near_budget_warning", "steps_left": 3}]
    (harness / "harness.yaml").write_text(yaml.safe_dump(config))
    upstream = ReplayUpstream(calls([f"echo {i}" for i in range(20)]))
    assert run_rollout(inputs_for_harness(harness), upstream).status == "ok"
    assert len(upstream.requests) == 12
    warned = [i + 1 for i, t in enumerate(tool_results(upstream)) if "steps left" in t]
    assert warned == [9]


def test_step_cap(tmp_path: Path) -> None:
    result, upstream = rollout(tmp_path, ["step_cap"], calls([f"echo {i}" for i in range(20)]))
    assert len(upstream.requests) == 7
    assert len(events(result, "model_call")) == 7


def test_empty_submission_guard_refuses_once(tmp_path: Path) -> None:
    done = {"role": "assistant", "content": "Done."}
    result, upstream = rollout(tmp_path, ["empty_submission_guard"], [done, done])
    assert len(upstream.requests) == 2
    assert upstream.requests[1]["messages"][-1]["content"].startswith("[guard]")
    assert len(events(result, "submit")) == 1
    # When the work changed the working directory, the submission is accepted at once.
    _, ok = rollout(
        tmp_path / "b",
        ["empty_submission_guard"],
        [call("echo ok > /workspace/smoke.txt", 0), done],
    )
    assert len(ok.requests) == 2


def test_ground_check_refuses_the_first_submission(tmp_path: Path) -> None:
    done = {"role": "assistant", "content": "Done."}
    _, upstream = rollout(tmp_path, ["ground_check"], [done, done])
    assert "verify your change" in upstream.requests[1]["messages"][-1]["content"]


def test_format_repair_asks_again_instead_of_losing_the_step(tmp_path: Path) -> None:
    broken = call("", 0, arguments='{"command": "echo ok > /workspace/smoke.txt')
    fixed = call("echo ok > /workspace/smoke.txt", 1)
    plain, _ = rollout(tmp_path / "a", [], [broken, fixed])
    repaired, upstream = rollout(tmp_path / "b", ["format_repair"], [broken, fixed])
    assert tool_results(upstream)[0].startswith("[repair]")
    assert json.loads(repaired.trajectory.splitlines()[-1])["type"] == "submit"
    assert repaired.official_pass and plain.official_pass  # the resent call ran either way
    assert sum(1 for e in events(plain, "tool_call")) == 1


def test_fenced_tools_sends_no_schema_and_runs_blocks(tmp_path: Path) -> None:
    fenced = {
        "role": "assistant",
        "content": "Writing it.\n```bash\necho ok > /workspace/smoke.txt\n```",
    }
    result, upstream = rollout(tmp_path, ["fenced_tools"], [fenced])
    assert "tools" not in upstream.requests[0]
    assert "```bash" in upstream.requests[0]["messages"][0]["content"]
    assert result.official_pass


@pytest.mark.slow
def test_command_timeout(tmp_path: Path) -> None:
    _, upstream = rollout(tmp_path, ["command_timeout"], calls(["sleep 12"]))
    assert tool_results(upstream)[0] == "(command timed out after 10 s)"
