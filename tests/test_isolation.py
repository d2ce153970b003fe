"""The sandbox holds against a hostile harness: these fail if isolation breaks."""

from __future__ import annotations

import json
import os
import socket
import uuid
from pathlib import Path

import pytest

from harnesspro.core.records import RolloutResult
from harnesspro.execution.rollout import run_rollout
from harnesspro.harness.validate import SMOKE_TASK
from harnesspro.tasks.loader import builtin_suite_dir
from tests.conftest import inputs_for_harness

MANIFEST = '[harness]\nname = "probe"\ncommand = ["bash", "/harness/run.sh"]\n'
RESULT = '\necho \'{"status": "submitted"}\' > "$HARNESSPRO_OUT/result.json"\n'


def probe(
    tmp_path: Path,
    script: str,
    timeout_s: float = 30.0,
    manifest: str = MANIFEST,
    result_json: bool = True,
) -> RolloutResult:
    """Run a bash script as the harness, in the sandbox, on the smoke task."""
    harness = tmp_path / "probe"
    harness.mkdir(parents=True)
    (harness / "harness.toml").write_text(manifest)
    (harness / "run.sh").write_text("set -u\n" + script + (RESULT if result_json else ""))
    return run_rollout(inputs_for_harness(harness, timeout_s))


def report(result: RolloutResult) -> dict[str, str]:
    return json.loads(result.workspace["probe.json"])


def test_only_the_gateway_is_reachable(tmp_path: Path) -> None:
    host = socket.socket()
    host.bind(("127.0.0.1", 0))
    host.listen(1)
    port = host.getsockname()[1]
    fetch = (
        "import urllib.request as u, os; r = u.Request(os.environ['OPENAI_BASE_URL'] + '/models',"
        " headers={'Authorization': 'Bearer ' + os.environ['OPENAI_API_KEY']});"
        " print(u.urlopen(r).status)"
    )
    script = f"""
try() {{ (exec 3<>/dev/tcp/$1/$2) 2>/dev/null && echo open || echo closed; }}
gw=$(python3 -c "{fetch}")
printf '{{"gateway": "%s", "host_port": "%s", "internet": "%s"}}' \\
  "$gw" "$(try 127.0.0.1 {port})" "$(try 1.1.1.1 80)" > /workspace/probe.json
"""
    try:
        result = probe(tmp_path, script)
    finally:
        host.close()
    assert report(result) == {"gateway": "200", "host_port": "closed", "internet": "closed"}


def test_task_tests_solutions_and_host_files_cannot_be_read(tmp_path: Path) -> None:
    secret = tmp_path / "host-secret.txt"
    secret.write_text("host secret")
    solution = next(builtin_suite_dir().glob("*/solution/solve.sh"))
    script = f"""
r() {{ cat "$1" >/dev/null 2>&1 && echo readable || echo hidden; }}
printf '{{"tests": "%s", "smoke": "%s", "solution": "%s", "secret": "%s"}}' \\
  "$(r /tests/test.sh)" "$(r {SMOKE_TASK}/tests/test.sh)" "$(r {solution})" "$(r {secret})" \\
  > /workspace/probe.json
"""
    expected = {"tests": "hidden", "smoke": "hidden", "solution": "hidden", "secret": "hidden"}
    assert report(probe(tmp_path, script)) == expected


def test_nothing_outside_the_writable_mounts_can_be_written(tmp_path: Path) -> None:
    script = """
w() { (echo x > "$1") 2>/dev/null && echo written || echo refused; }
venv=$(dirname "$(command -v python3)")
printf '{"harness": "%s", "usr": "%s", "etc": "%s", "root": "%s", "venv": "%s", "out": "%s"}' \\
  "$(w /harness/x)" "$(w /usr/x)" "$(w /etc/x)" "$(w /x)" "$(w "$venv/x")" \\
  "$(w "$HARNESSPRO_OUT/x")" > /workspace/probe.json
"""
    assert report(probe(tmp_path, script)) == {
        "harness": "refused",
        "usr": "refused",
        "etc": "refused",
        "root": "refused",
        "venv": "refused",
        "out": "written",
    }


def test_host_environment_and_provider_key_are_not_inherited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-host-provider-key")
    result = probe(tmp_path, "env > /workspace/env.txt")
    env = result.workspace["env.txt"].decode()
    assert "sk-host-provider-key" not in env
    assert "OPENAI_API_KEY=replay-token-0123456789" in env  # the per-rollout token only
    # HOME is the task container's (/root, a per-rollout staged folder), as for the verifier.
    assert "PYTEST_CURRENT_TEST" not in env and "HOME=/root" in env


def _alive(marker: str) -> list[int]:
    """Processes anywhere on the host whose command line carries `marker`."""
    alive = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                alive.append(int(pid))
        except OSError:
            continue
    return alive


def test_fork_bomb_is_killed_at_the_timeout_with_no_child_left(tmp_path: Path) -> None:
    marker = f"hpbomb{uuid.uuid4().hex[:8]}"
    script = f"printf 'bash $0 & bash $0 & wait' > /tmp/{marker}.sh\nbash /tmp/{marker}.sh\n"
    result = probe(tmp_path, script, timeout_s=3)
    assert result.status == "timeout"
    assert _alive(marker) == []


def test_sleep_infinity_in_a_new_session_is_killed(tmp_path: Path) -> None:
    marker = f"hpsleep{uuid.uuid4().hex[:8]}"
    script = f"(exec -a {marker} setsid sleep infinity) &\nexec -a {marker}-main sleep infinity\n"
    result = probe(tmp_path, script, timeout_s=2)
    assert result.status == "timeout" and result.reason == "timed out after 2 s"
    assert _alive(marker) == []


def test_bad_harnesses_end_as_recorded_harness_errors(tmp_path: Path) -> None:
    no_command = probe(tmp_path / "a", "true", manifest='[harness]\nname = "x"\n')
    assert no_command.status == "harness_error"
    assert no_command.reason == "harness.toml has no [harness] command"
    failing = probe(tmp_path / "b", "echo boom >&2; exit 3")
    assert (failing.status, failing.reason) == ("harness_error", "exited with status 3: boom")
    silent = probe(tmp_path / "c", "true", result_json=False)
    assert silent.status == "harness_error"
    assert silent.reason == "finished without writing a valid result.json (a regular file)"
    loud = probe(tmp_path / "d", "head -c 1000000000 /dev/zero")
    assert loud.status == "harness_error" and loud.reason.startswith("printed more than")
    for result in (no_command, failing, silent, loud):
        assert "\n" not in result.reason and result.official_pass is False
