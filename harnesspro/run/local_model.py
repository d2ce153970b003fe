"""The run's own llama.cpp server (`model.upstream: llama-cpp`): started on a free loopback
port before the run's first rollout and stopped when it ends, its log in the run folder."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harnesspro.core.config import RunConfig
from harnesspro.core.config_base import ConfigError
from harnesspro.execution.llama.gguf import resolve
from harnesspro.execution.llama.server import LlamaServer, ServerSettings
from harnesspro.run.context import RunContext

SERVER_LOG = "llama-server.log"


def server_settings(config: RunConfig, folder: Path) -> ServerSettings:
    """The server a config asks for, its log in `folder`."""
    model = config.model
    if model.gguf is None:
        raise ConfigError("model.gguf: upstream llama-cpp needs a model name or .gguf path.")
    server = model.local_server
    gguf = resolve(model.gguf)
    return ServerSettings(
        gguf, server.threads, server.context_tokens, server.chat_format, folder / SERVER_LOG
    )


@contextmanager
def serving(config: RunConfig, folder: Path) -> Iterator[str | None]:
    """The local server's base URL for the block (None when the model is not local)."""
    if config.model.upstream != "llama-cpp":
        yield None
        return
    if os.environ.get("RAY_ADDRESS"):
        raise ConfigError(
            "model.upstream llama-cpp starts its server on this machine, which a Ray cluster's "
            "workers cannot reach; serve the model yourself and use upstream openai with its "
            "base_url."
        )
    with LlamaServer(server_settings(config, folder)) as url:
        yield url


@contextmanager
def served(ctx: RunContext) -> Iterator[RunContext]:
    """The run context with its local model served for the block, if it has one."""
    with serving(ctx.config, ctx.run.root) as url:
        yield ctx if url is None else dataclasses.replace(ctx, model_url=url)
