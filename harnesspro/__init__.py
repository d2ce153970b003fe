"""HarnessPro: evolve an LLM agent's harness toward the Pareto front of pass rate vs cost.

The public surface for Python users is `__all__`: a run's configuration, the command line, and
a finished run's operating points (lite/medium/heavy) and their export. Each name is loaded
when first used, so `import harnesspro` stays cheap and this face imports no layer.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_PUBLIC = {
    "RunConfig": "harnesspro.core.config",
    "load_config": "harnesspro.core.config",
    "main": "harnesspro.cli",
    "OperatingPoint": "harnesspro.run.operating_points",
    "load_operating_points": "harnesspro.run.operating_points",
    "export_operating_point": "harnesspro.reports.export.harness",
}
__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'harnesspro' has no attribute {name!r}")
    return getattr(importlib.import_module(_PUBLIC[name]), name)
