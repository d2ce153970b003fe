"""Implementations named by dotted paths (`package.module:Name`), loaded when first used.

Plumbing that must construct an implementation it may not import (an upstream that sits in a
higher layer, or one whose SDK is slow to import) names it here and resolves it at run time,
as mini-swe-agent resolves its models.
"""

from __future__ import annotations

import importlib
from typing import Any

UPSTREAMS = {
    # The openai SDK (~0.6 s to import) is loaded only by the processes that call a provider.
    "openai": "harnesspro.execution.gateway.openai_upstream:OpenAIUpstream",
    # A llama.cpp server the run started on loopback (a timed-out call is not sent again).
    "llama-cpp": "harnesspro.execution.llama.upstream:LlamaUpstream",
    # The offline stand-in for an improver model (a fake that ships, like the scripted policy).
    "scripted-improver": "harnesspro.improvers.roles.scripted:ScriptedImprover",
}


def resolve(dotted: str) -> Any:
    """The object a `module:Name` path names."""
    module, _, name = dotted.partition(":")
    return getattr(importlib.import_module(module), name)


def upstream_class(name: str) -> Any:
    """The upstream class registered under `name`."""
    return resolve(UPSTREAMS[name])
