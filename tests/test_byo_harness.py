"""Bring your own harness: mini-swe-agent (no code shared with the seed) behind a wrapper
script, installed from its manifest's `requirements` into a cached tool environment and run
end to end in the sandbox behind the gateway."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

import harnesspro
from harnesspro.cli import main
from harnesspro.execution.harness_entry import harness_command
from harnesspro.execution.rollout import run_rollout
from harnesspro.harness.validate import static_problem
from harnesspro.tasks.loader import folder_files
from harnesspro.tasks.toolenv import ToolEnv, ToolEnvError, ensure_toolenv
from tests.conftest import builtin_task, inputs_for, inputs_for_harness

MINI = Path(harnesspro.__file__).parent / "harness" / "bundled" / "mini_swe_agent"
SCHEMA = {"model_call", "tool_call", "tool_result", "submit", "error"}
PROBE = """
import json, os, sys
try:
    open(os.path.join(sys.prefix, "x"), "w")
    written = True
except OSError:
    written = False
open("/workspace/probe.json", "w").write(json.dumps({"prefix": sys.prefix, "written": written}))
open(os.environ["HARNESSPRO_OUT"] + "/result.json", "w").write('{"status": "submitted"}')
"""


def manifest(tmp_path: Path, requirements: str) -> Path:
    harness = tmp_path / "h"
    harness.mkdir(parents=True)
    (harness / "harness.toml").write_text(
        f'[harness]\ncommand = ["{{python}}", "-c", "pass"]\nrequirements = {requirements}\n'
    )
    return harness


@pytest.mark.parametrize(
    "requirements",
    ['"mini-swe-agent"', "[1]", '["--index-url=http://x"]', '["-r /etc/passwd"]', '["a @ ../x"]'],
)
def test_malformed_requirements_are_rejected_with_a_reason(
    tmp_path: Path, requirements: str
) -> None:
    problem = static_problem(manifest(tmp_path, requirements), None)
    assert problem.startswith("harness.toml: [harness] requirements") and "\n" not in problem
    # A harness that skipped validation is a harness error before pip or the sandbox runs.
    result = run_rollout(inputs_for_harness(manifest(tmp_path / "r", requirements)))
    assert (result.status, result.reason) == ("harness_error", problem)


def test_well_formed_requirements_and_python_resolution(tmp_path: Path) -> None:
    reqs = '["mini-swe-agent==2.4.6", "Foo_Bar[extra]>=1.0,<2", "x ~= 1.2"]'
    assert static_problem(manifest(tmp_path, reqs), None) == ""
    env = ToolEnv(Path("/cache/toolenvs/abc"), ("x",))
    assert (
        # the environment as the sandbox sees it, bound where no task folder is
        harness_command(manifest(tmp_path / "p", "[]"), env)[0]
        == "/.harnesspro/toolenvs/abc/bin/python"
    )


@pytest.fixture(scope="module")
def mini_env() -> ToolEnv:
    """mini-swe-agent's tool environment, built once (~75 s and ~730 MB from PyPI) or reused.
    Without network the build fails and so does every test using it: never a silent skip."""
    requirements = tomllib.loads((MINI / "harness.toml").read_text())["harness"]["requirements"]
    try:
        return ensure_toolenv(requirements)
    except ToolEnvError as exc:
        pytest.fail(f"cannot build mini-swe-agent's tool environment (network?): {exc}")


@pytest.mark.slow
def test_mini_swe_agent_passes_harness_validate(
    mini_env: ToolEnv, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["harness", "validate", str(MINI)]) == 0, capsys.readouterr().out
    assert "valid (manifest" in capsys.readouterr().out


@pytest.mark.slow
def test_mini_swe_agent_solves_a_builtin_task(mini_env: ToolEnv) -> None:
    harness = folder_files(MINI)
    results = [
        run_rollout(inputs_for(builtin_task("sales_by_region"), a, harness)) for a in range(2)
    ]
    for result in results:
        assert result.status == "ok", f"{result.reason}\n{result.detail}"
        events = [json.loads(line) for line in result.trajectory.splitlines()]
        assert {e["type"] for e in events} <= SCHEMA
        assert all(isinstance(e["step"], int) and e["ts"] > 0 for e in events)
        assert sum(e["type"] == "model_call" for e in events) <= result.n_calls
        assert result.n_calls > 0 and result.usage.total > 0  # metered by the gateway
    assert any(r.official_pass for r in results), [r.trajectory[-400:] for r in results]
    passed = next(r for r in results if r.official_pass)
    types = [json.loads(line)["type"] for line in passed.trajectory.splitlines()]
    assert {"model_call", "tool_call", "tool_result"} <= set(types) and types[-1] == "submit"


@pytest.mark.slow
def test_tool_env_is_the_interpreter_and_read_only(mini_env: ToolEnv, tmp_path: Path) -> None:
    harness = tmp_path / "probe"
    harness.mkdir()
    (harness / "harness.toml").write_text(
        '[harness]\ncommand = ["{python}", "/harness/probe.py"]\n'
        'requirements = ["mini-swe-agent==2.4.6"]\n'
    )
    (harness / "probe.py").write_text(PROBE)
    result = run_rollout(inputs_for_harness(harness))
    assert result.status == "ok", result.reason + result.detail
    assert json.loads(result.workspace["probe.json"]) == {
        "prefix": mini_env.target,  # where the sandbox sees it
        "written": False,
    }
