"""The PATH a sandboxed process sees, and the interpreter folders it needs."""

from __future__ import annotations

import os
import sys


def python_dirs() -> list[str]:
    """Interpreter prefixes to expose read-only, so `{python}` runs inside the sandbox."""
    return sorted({os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)})


def sandbox_path() -> str:
    """PATH inside the sandbox: harnesspro's interpreter first, then the system."""
    return f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin"
