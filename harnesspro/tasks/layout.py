"""Lay a task's files out at their container paths and bind them into the sandbox.

The container file system a Dockerfile builds is staged under one host folder (`root`), which
is then the task's working state: the agent and the verifier see the same files. Paths under
the read-only system folders (/usr, /etc, ...) are added by shadowing the nearest existing
folder; everything else is bound writable at its top-level folder (/workspace, /app, /data).
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harnesspro.core.records import Task
from harnesspro.sandbox.bubblewrap import SYSTEM_DIRS
from harnesspro.sandbox.contract import Mount
from harnesspro.sandbox.paths import python_dirs, sandbox_path
from harnesspro.tasks.environment import Copy, Environment
from harnesspro.tasks.loader import TaskError, TaskFiles, task_files
from harnesspro.tasks.ospackages import PackageLayer
from harnesspro.tasks.toolenv import ToolEnv


@dataclass(frozen=True)
class Layout:
    """Host folders for one task run and where the sandbox binds them."""

    root: Path  # the staged container file system: root/<container path>
    tests: Path  # staged copy of the tests, bound at /tests for the verifier only
    logs: Path  # /logs: agent/ is bound for the agent; each verifier run gets a fresh folder
    workdir: str
    files_mounts: tuple[Mount, ...]
    tool_mounts: tuple[Mount, ...]
    env: tuple[tuple[str, str], ...]
    checker_mounts: tuple[Mount, ...] = ()
    """The verifier's own tool environment (the task's tools plus what its tests call)."""
    checker_path: str = ""
    """PATH for the verifier: its tool environment, then the task's PATH without harnesspro's
    interpreter folder (whose tools are not the task's)."""

    def host(self, container_path: str) -> Path:
        """The host path holding a container path of the staged file system."""
        return self.root / container_path.lstrip("/")

    def mounts(self, verifier: bool = False, extra: Iterable[Mount] = ()) -> list[Mount]:
        """Mounts for a run; the tests are bound only for the verifier (Harbor copies them in
        after the agent finished). /logs itself is no task folder: the agent can write only
        /logs/agent, and `/logs/verifier` is bound by the verifier's run (in `extra`)."""
        agent_logs = Mount(self.logs / "agent", "/logs/agent", writable=True)
        if not verifier:
            return [*self.files_mounts, agent_logs, *extra, *self.tool_mounts]
        tests = Mount(self.tests, "/tests", writable=True)
        return [*self.files_mounts, tests, *extra, *self.tool_mounts, *self.checker_mounts]

    def verifier_environment(self) -> dict[str, str]:
        """The task's variables with the verifier's PATH (before the writable-folder filter)."""
        env = dict(self.env)
        return {**env, "PATH": self.checker_path} if self.checker_path else env

    def tidy(self) -> None:
        """Remove the empty folders bwrap made in `root` as mount points for the tools."""
        for mount in self.tool_mounts:
            path = self.host(mount.target)
            # Stop below the top-level folders: those are bound themselves, even when empty.
            while path.parent != self.root and path.is_dir() and not any(path.iterdir()):
                path.rmdir()
                path = path.parent


def lay_out(
    task: Task,
    environment: Environment,
    dest: Path,
    tools: ToolEnv | None,
    packages: PackageLayer | None = None,
    built: Path | None = None,
    checker: ToolEnv | None = None,
) -> Layout:
    """Stage the task's container files under `dest` and describe the sandbox mounts.
    `built` is a file system the task's build steps already made (a copy of it is staged);
    `checker` is the verifier's tool environment."""
    files = task_files(task)
    root = dest / "fs"
    workdir = host_alias(environment.workdir if environment.workdir != "/" else task.workdir)
    if built is not None:
        shutil.copytree(built, root, symlinks=True)
    for folder in (*environment.mkdirs, workdir, "/root"):
        (root / host_alias(folder).lstrip("/")).mkdir(parents=True, exist_ok=True)
    (dest / "logs" / "agent").mkdir(parents=True)
    if built is None:
        for copy in environment.copies:
            _stage_copy(files, copy, root)
        for mode, path in environment.chmods:
            _chmod(root / host_alias(path).lstrip("/"), mode, files)
    tests = _stage_tests(files, dest / "tests")
    for staged in (root, tests):
        _owner_writable(staged)
    file_mounts = [m for m in _file_mounts(root, dest / "shadow") if not _under(m.target, "/logs")]
    tool_mounts = _tool_mounts(file_mounts, tools) + (packages.mounts() if packages else [])
    env = _env(environment, tools, files, packages)
    if checker is None:
        return Layout(
            root, tests, dest / "logs", workdir, tuple(file_mounts), tuple(tool_mounts), env
        )
    own = os.path.dirname(sys.executable)
    folders = [str(checker.bin), *(d for d in dict(env)["PATH"].split(":") if d and d != own)]
    return Layout(
        root, tests, dest / "logs", workdir, tuple(file_mounts), tuple(tool_mounts), env,
        () if tools and tools.root == checker.root else tuple(checker.mounts()), ":".join(folders),
    )  # fmt: skip


def host_alias(container_path: str) -> str:
    """Rewrite paths under system folders that are symlinks here (/bin -> /usr/bin)."""
    for top in SYSTEM_DIRS:
        if (container_path == top or container_path.startswith(top + "/")) and Path(
            top
        ).is_symlink():
            return os.path.realpath(top) + container_path[len(top) :]
    return container_path


def _stage_copy(files: TaskFiles, copy: Copy, root: Path) -> None:
    sources = (
        sorted(glob.glob(str(files.context / copy.source)))
        if glob.has_magic(copy.source)
        else [str(files.context / copy.source)]
    )
    if not sources or not all(os.path.lexists(s) for s in sources):
        raise TaskError(
            f"{files.dockerfile}: COPY source {copy.source} is missing from {files.context}."
        )
    dest = host_alias(copy.dest.rstrip("/") or "/")
    target = root / dest.lstrip("/")
    for source in map(Path, sources):
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
            continue
        # Docker puts a file inside the destination when it names a folder (by a trailing
        # slash, or because the folder already exists in the image).
        into = copy.dest.endswith("/") or len(sources) > 1 or target.is_dir() or _is_host_dir(dest)
        final = target / source.name if into else target
        final.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, final)


def _is_host_dir(container_path: str) -> bool:
    """Folders the base image has too (the host system stands in for it)."""
    return container_path in ("/tmp", "/root", "/home", "/opt", "/srv") or (
        any(container_path.startswith(top + "/") for top in SYSTEM_DIRS)
        and Path(container_path).is_dir()
    )


def _chmod(path: Path, mode: str, files: TaskFiles) -> None:
    if not path.exists():
        raise TaskError(f"{files.dockerfile}: chmod of {path.name}, which no COPY created.")
    if mode.endswith("+x"):
        path.chmod(path.stat().st_mode | 0o111)
    else:
        path.chmod(int(mode, 8))


def _owner_writable(folder: Path) -> None:
    """Give the owner write access to staged copies of read-only task files: in Docker, root
    writes anyway; in the sandbox every capability (DAC override included) is dropped."""
    folder.chmod(folder.stat().st_mode | 0o700)
    for path in folder.rglob("*"):
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | (0o700 if path.is_dir() else 0o600))


def _stage_tests(files: TaskFiles, dest: Path) -> Path:
    shutil.copytree(files.tests, dest, symlinks=True) if files.tests.is_dir() else dest.mkdir()
    for extra in files.extra_tests:
        shutil.copy2(extra, dest / extra.name)
    return dest


def _file_mounts(root: Path, shadows: Path) -> list[Mount]:
    mounts: list[Mount] = []
    for top in sorted(root.iterdir()):
        target = "/" + top.name
        if target in SYSTEM_DIRS and Path(target).is_dir():
            mounts += _overlay(top, target, shadows)
        else:
            mounts.append(Mount(top, target, writable=True))
    return mounts


def _overlay(staged: Path, target: str, shadows: Path) -> list[Mount]:
    """Add a staged folder's entries to `target`, a read-only host folder of the sandbox."""
    children = sorted(staged.iterdir())
    if any(not os.path.lexists(f"{target}/{c.name}") for c in children):
        return _shadow(staged, target, shadows)
    mounts: list[Mount] = []
    for child in children:
        dest = f"{target}/{child.name}"
        if child.is_dir() and Path(dest).is_dir() and not Path(dest).is_symlink():
            mounts += _overlay(child, dest, shadows)
        else:
            mounts.append(Mount(child, dest, writable=True))
    return mounts


def _shadow(staged: Path, target: str, shadows: Path) -> list[Mount]:
    """Replace `target` by a writable folder re-binding the host's entries plus the staged
    ones: bwrap cannot create a mount point inside a read-only bind."""
    shadow = shadows / target.lstrip("/")
    shadow.mkdir(parents=True)
    mounts = [Mount(shadow, target, writable=True)]
    staged_names = {c.name for c in staged.iterdir()}
    for entry in sorted(Path(target).iterdir()):
        if entry.name in staged_names:
            continue
        if entry.is_symlink():
            (shadow / entry.name).symlink_to(os.readlink(entry))
        elif entry.is_dir() or entry.is_file():
            mounts.append(Mount(entry, str(entry)))
    for child in sorted(staged.iterdir()):
        dest = f"{target}/{child.name}"
        if child.is_dir() and Path(dest).is_dir() and not Path(dest).is_symlink():
            mounts += [Mount(Path(dest), dest), *_overlay(child, dest, shadows)]
        else:
            mounts.append(Mount(child, dest, writable=True))
    return mounts


def _tool_mounts(file_mounts: list[Mount], tools: ToolEnv | None) -> list[Mount]:
    """The tool environment, plus interpreter folders that a task folder bound over (a task
    that owns /root would otherwise hide an interpreter living under /root)."""
    targets = [m.target for m in file_mounts]
    hidden = [Path(p) for p in python_dirs() if any(_under(str(p), t) for t in targets)]
    return [*(Mount(p, str(p)) for p in hidden), *(tools.mounts() if tools else [])]


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _env(
    environment: Environment,
    tools: ToolEnv | None,
    files: TaskFiles,
    packages: PackageLayer | None,
) -> tuple[tuple[str, str], ...]:
    env = {"HOME": "/root", **dict(environment.env)}
    if files.layout == "terminal-bench":
        # Terminal-Bench's docker-compose sets TEST_DIR; its run-tests.sh scripts rely on it.
        env.setdefault("TEST_DIR", "/tests")
    path = env.get("PATH", sandbox_path())
    env["PATH"] = f"{tools.bin}:{path}" if tools else path
    if packages:
        # After the system's folders: the layer only adds what the host lacks.
        env["PATH"] = ":".join(p for p in (env["PATH"], packages.bin_path()) if p)
        libs = (env.get("LD_LIBRARY_PATH"), packages.lib_path())
        env["LD_LIBRARY_PATH"] = ":".join(p for p in libs if p)
    return tuple(env.items())
