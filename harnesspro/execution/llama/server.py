"""A llama.cpp server (llama-cpp-python's) that a run starts on a free loopback port for its
own use and stops when it ends; its log goes to the run folder."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from harnesspro.core.config_base import ConfigError

READY_TIMEOUT_S = 300.0
"""Loading a GGUF of a few hundred MB takes seconds; a busy machine may take minutes."""
STOP_TIMEOUT_S = 10.0
INSTALL_HINT = (
    "install llama-cpp-python's server: `sh scripts/install_llama.sh .venv/bin/python && "
    ".venv/bin/pip install -e '.[local]'`"
)


class ServerError(ConfigError):
    """The server could not start (one sentence naming why, exit 2)."""


@dataclass(frozen=True)
class ServerSettings:
    """How the server runs the model."""

    gguf: Path
    threads: int
    context_tokens: int
    chat_format: str | None
    """llama-cpp-python's chat format (None = the chat template inside the GGUF)."""
    log: Path


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def server_argv(settings: ServerSettings, port: int, python: str = sys.executable) -> list[str]:
    """The command line of the server."""
    argv = [python, "-m", "llama_cpp.server", "--model", str(settings.gguf)]
    argv += ["--host", "127.0.0.1", "--port", str(port)]
    argv += ["--n_threads", str(settings.threads), "--n_ctx", str(settings.context_tokens)]
    # No `--cache`: llama-cpp-python's RAM prompt cache keeps a copy of the logits buffer
    # (hundreds of MB) per entry outside its size limit, and grew one server past 22 GB here.
    if settings.chat_format:
        argv += ["--chat_format", settings.chat_format]
    return argv


def server_installed() -> bool:
    """Whether llama-cpp-python and its server's web stack import here."""
    return all(importlib.util.find_spec(m) for m in ("llama_cpp", "uvicorn", "fastapi"))


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=5) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError):
        return False


class LlamaServer:
    """`with LlamaServer(settings) as base_url:` runs the server for the block's duration."""

    def __init__(self, settings: ServerSettings, ready_timeout_s: float = READY_TIMEOUT_S):
        self.settings = settings
        self.ready_timeout_s = ready_timeout_s
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        """Start the server and wait until it answers; its OpenAI base URL."""
        if not server_installed():
            raise ServerError(f"model.upstream llama-cpp: {INSTALL_HINT}")
        port = free_port()
        self.settings.log.parent.mkdir(parents=True, exist_ok=True)
        with self.settings.log.open("ab") as log:
            self.process = subprocess.Popen(
                server_argv(self.settings, port), stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + self.ready_timeout_s
        while not answers(url):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise ServerError(
                    f"the llama.cpp server for {self.settings.gguf.name} did not start: "
                    f"{self._last_line()} (log: {self.settings.log})"
                )
            time.sleep(0.5)
        return url

    def _last_line(self) -> str:
        try:
            lines = self.settings.log.read_text(errors="replace").strip().splitlines()
        except OSError:
            lines = []
        return lines[-1][:300] if lines else "no output"

    def stop(self) -> None:
        """Stop the server (terminate, then kill after a grace period)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
