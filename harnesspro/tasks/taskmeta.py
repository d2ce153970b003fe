"""The fields HarnessPro reads from a task's metadata file (Harbor task.toml, Terminal-Bench
task.yaml), typed and bounded. Keys it does not read are left alone."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_TIMEOUT_S = 86_400.0
"""A day: longer agent or verifier limits in a task file are a typo, never a real setting."""

Timeout = Annotated[float, Field(gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)]
"""Seconds: finite, positive, at most a day."""

DEFAULT_TIMEOUT_S = 600.0


class _Section(BaseModel):
    # Task files carry many keys HarnessPro never reads (tags, author, resources): keep them
    # unchecked. Numbers where a label is expected read as their text, as before.
    model_config = ConfigDict(extra="ignore", frozen=True, coerce_numbers_to_str=True)


class HarborMetadata(_Section):
    category: str = "uncategorised"
    difficulty: str = "unknown"


class HarborTimeout(_Section):
    timeout_sec: Timeout = DEFAULT_TIMEOUT_S


class HarborOwn(_Section):
    """The `[harnesspro]` table: settings of ours Harbor does not know."""

    workdir: str | None = None


class HarborMeta(_Section):
    """task.toml."""

    metadata: HarborMetadata = HarborMetadata()
    agent: HarborTimeout = HarborTimeout()
    verifier: HarborTimeout = HarborTimeout()
    harnesspro: HarborOwn = HarborOwn()


class TerminalBenchDescription(_Section):
    description: str | None = None


class TerminalBenchMeta(_Section):
    """task.yaml."""

    instruction: str | None = None
    descriptions: list[TerminalBenchDescription] = []
    """The first Terminal-Bench releases kept a list of descriptions instead of `instruction`."""
    category: str = "uncategorised"
    difficulty: str = "unknown"
    max_agent_timeout_sec: Timeout = DEFAULT_TIMEOUT_S
    max_test_timeout_sec: Timeout = DEFAULT_TIMEOUT_S


def describe(error: ValidationError, path: object) -> str:
    """One sentence naming the file, the first bad key and the fix."""
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    if first["type"] in ("model_type", "model_attributes_type", "dict_type"):
        message = "must be a table of keys"
    else:  # "Input should be a valid number, unable to parse ..." -> "should be a valid number"
        message = first["msg"].removeprefix("Input ").split(",")[0]
    return f"{path}: `{where}` = {_shown(first['input'])} {message}; fix it."


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
