"""The sandbox with no isolation at all, for machines without bubblewrap: the same interface,
and a loud warning once per process."""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from harnesspro.sandbox.contract import (
    Limits,
    Mount,
    SandboxResult,
    map_paths,
    mounted_source,
)
from harnesspro.sandbox.paths import sandbox_path
from harnesspro.sandbox.process import run_limited

LOCAL_WARNING = (
    "warning: sandbox.backend is 'local': harness code runs WITHOUT isolation (as you, with "
    "your files and network); install bubblewrap and use backend 'bubblewrap'."
)
"""What `evolve` says once at start when the configured backend is `local`."""


_LOCAL_WARNED = False  # the warning is said once per process, not once per rollout


class Local:
    """No isolation: processes run on the host with mounts mapped to their host sources.

    Only for machines without bubblewrap. The harness can read and write anything the user
    can, reach the network, and see the host environment minus the variables we drop.
    Mount targets are mapped in argv, the environment, the working directory and the text
    of a shell script run as `bash|sh SCRIPT` (a task's test.sh names /workspace, /logs...);
    other files that name container paths are not rewritten.
    """

    def __init__(self, limits: Limits | None = None) -> None:
        global _LOCAL_WARNED
        if not _LOCAL_WARNED:
            _LOCAL_WARNED = True
            warnings.warn(
                "sandbox backend 'local' gives NO isolation: harness code runs as you, with "
                "your files and network. Install bubblewrap and use backend 'bubblewrap'.",
                stacklevel=2,
            )
            print(
                "WARNING: sandbox backend 'local' runs harnesses WITHOUT isolation.",
                file=sys.stderr,
            )
        self.limits = limits or Limits()

    def visible_path(self, mounts: Sequence[Mount], target: str) -> str:
        return mounted_source(mounts, target) or target

    def run(
        self,
        argv: Sequence[str],
        mounts: Sequence[Mount],
        env: Mapping[str, str],
        cwd: str,
        timeout_s: float,
    ) -> SandboxResult:
        mapped = [self.visible_path(mounts, a) if a.startswith("/") else a for a in argv]
        host_env = {"PATH": sandbox_path(), "HOME": os.environ.get("HOME", "/tmp"), **env}
        host_env = {k: self.visible_path(mounts, v) for k, v in host_env.items()}
        with tempfile.TemporaryDirectory(prefix="hp-local-") as tmp:
            if len(mapped) > 1 and mapped[0] in ("bash", "sh") and os.path.isfile(mapped[1]):
                script = Path(tmp) / "script.sh"
                script.write_text(map_paths(Path(mapped[1]).read_text(), mounts))
                mapped[1] = str(script)
            cwd = self.visible_path(mounts, cwd)
            return run_limited(mapped, host_env, cwd, timeout_s, self.limits)
