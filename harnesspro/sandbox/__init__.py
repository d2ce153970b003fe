"""Sandboxes for harness and test processes: `bubblewrap` (isolated) and `local` (no
isolation, for machines without bubblewrap), both behind the protocol of `contract`."""

from __future__ import annotations

from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.contract import Limits, Sandbox
from harnesspro.sandbox.local import Local


def make_sandbox(backend: str, limits: Limits | None = None) -> Sandbox:
    """The configured backend: 'bubblewrap' (default) or 'local' (no isolation)."""
    if backend == "local":
        return Local(limits)
    return Bubblewrap(limits)
