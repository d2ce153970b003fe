"""What every part of the run config shares: the error a bad config raises (one sentence,
exit 2), the bounds on numbers, and strict models that refuse unknown keys."""

from __future__ import annotations

from pydantic import (
    BaseModel,
    ConfigDict,
)


class ConfigError(Exception):
    """A user-fixable problem with a config file; the message is one sentence."""


# Sane upper bounds: a value past one is a typo (or a hostile file), never a real setting.
DAY_S = 86_400.0
"""Longest wall-clock limit a config may set (one day)."""


MAX_PRICE = 100_000.0
"""Dollars per million tokens; the dearest hosted models charge a few hundred."""


MAX_MEMORY_MB = 1 << 20
"""1 TiB: more than any machine a sandboxed process runs on."""


MAX_REPEATS = 100
"""Rollouts or attempts per task, epochs, survivors: past it a run never ends."""


class Strict(BaseModel):
    # No NaN or infinity in any number: a NaN limit never fires, an infinite price breaks
    # every report after the rollouts ran.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
