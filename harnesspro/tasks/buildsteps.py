"""Run a Dockerfile's shell RUN steps (`BuildStep`) once per task build, in the sandbox.

The steps run under bubblewrap with no network, over a layout of the task (its staged files,
tool environment and package layer, as the agent will see them), in Dockerfile order, each in
the WORKDIR of its RUN (`sh -c` runs as `bash -o pipefail -c`: a pipe whose download failed
fails). What they write into the staged file system becomes the task's built
file system, `<cache>/builds/<key>/fs` (key: the Dockerfile's interpretation and the build
context's files), made once with an atomic rename; every later layout starts from a copy of
it. A step that fails (a download, a write into a read-only system folder) makes the task
unrunnable, naming the step and its last error line.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from harnesspro.core.records import Task
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.sandbox.contract import Sandbox, SandboxUnavailable
from harnesspro.tasks.environment import DEFAULT_SHELL, BuildStep, Environment
from harnesspro.tasks.layout import Layout, lay_out
from harnesspro.tasks.loader import task_files
from harnesspro.tasks.ospackages import PackageLayer
from harnesspro.tasks.toolenv import ToolEnv, cache_root

BUILD_TIMEOUT_S = 600.0
# Empty top-level folders of every Debian/Ubuntu base image that the sandbox lacks: a step may
# `cd /opt` or write into /srv, and what it leaves there is part of the built file system.
BASE_IMAGE_DIRS = ("/home", "/media", "/mnt", "/opt", "/srv")


class BuildError(RuntimeError):
    """A build step failed; the message names it and says why."""


def build_key(task: Task, environment: Environment) -> str:
    """Cache key of the built file system: the interpreted Dockerfile and the context files."""
    context = task_files(task).context
    digest = hashlib.sha256(repr((BASE_IMAGE_DIRS, environment)).encode())
    for path in sorted(context.rglob("*")):
        if path.is_file():
            digest.update(f"\0{path.relative_to(context).as_posix()}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def ensure_build(
    task: Task,
    environment: Environment,
    tools: ToolEnv | None,
    packages: PackageLayer | None,
    cache: Path | None = None,
) -> Path | None:
    """The task's built file system (made now if the cache lacks it), or None when the
    Dockerfile has no build steps."""
    if not environment.build_steps:
        return None
    final = (cache or cache_root()) / "builds" / build_key(task, environment)
    if not (final / "fs").is_dir():
        final.parent.mkdir(parents=True, exist_ok=True)
        _build(task, environment, tools, packages, final)
    return final / "fs"


def _build(
    task: Task,
    environment: Environment,
    tools: ToolEnv | None,
    packages: PackageLayer | None,
    final: Path,
) -> None:
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=final.parent))
    try:
        base = replace(environment, mkdirs=(*BASE_IMAGE_DIRS, *environment.mkdirs))
        layout = lay_out(task, base, tmp / "layout", tools, packages)
        try:
            sandbox: Sandbox = Bubblewrap()
        except SandboxUnavailable as exc:
            raise BuildError(f"its build steps need bubblewrap ({exc})") from None
        for step in environment.build_steps:
            run_step(step, layout, sandbox)
        _keep_shadow_writes(layout, tmp / "layout" / "shadow")
        layout.tidy()
        (tmp / "layout" / "fs").rename(tmp / "fs")
        shutil.rmtree(tmp / "layout")
        try:
            tmp.rename(final)
        except OSError:
            if not (final / "fs").is_dir():
                raise
            # A concurrent build of the same task won the race; its result is equivalent.
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_step(step: BuildStep, layout: Layout, sandbox: Sandbox) -> None:
    """Run one step over the layout (no network, no tests); raise BuildError if it fails."""
    env = {**dict(step.args), **dict(layout.env)}
    # Docker's default `sh -c`, but failing when any part of a pipe fails: without network a
    # `curl ... | sh` would otherwise "succeed" and leave a task that only looks runnable.
    shell = list(step.shell) if step.shell != DEFAULT_SHELL else ["bash", "-o", "pipefail", "-c"]
    argv = [*shell, step.script]
    result = sandbox.run(argv, layout.mounts(), env, step.workdir, BUILD_TIMEOUT_S)
    if result.exit_code == 0:
        return
    lines = (result.stderr.strip() or result.stdout.strip() or "no output").splitlines()
    status = result.reason or f"exit code {result.exit_code}"
    command = step.script if len(step.script) <= 100 else step.script[:97] + "..."
    raise BuildError(f"build step `{command}` failed without network ({status}: {lines[-1]})")


def _keep_shadow_writes(layout: Layout, shadows: Path) -> None:
    """Move files a step wrote into a shadowed system folder (say a new /etc/x.conf) into the
    staged file system; the shadow itself only holds mount points and host symlinks."""
    for mount in layout.files_mounts:
        source = Path(mount.source)
        if not source.is_relative_to(shadows):
            continue
        for entry in sorted(source.iterdir()):
            staged = layout.host(mount.target) / entry.name
            if os.path.lexists(Path(mount.target) / entry.name) or os.path.lexists(staged):
                continue
            staged.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(entry, staged)
