"""Configuration files and interpreter start-up hooks in the agent's folders, kept from the
verifier's process.

Before the verifier runs (after the workspace snapshot), every such entry in a writable folder
that is not byte for byte the clean workspace's own is moved aside: `conftest.py`, pytest's
ini files, `sitecustomize`/`usercustomize` (a module, a package or compiled) and `.pth` files.
`pyproject.toml`, `setup.cfg` and `tox.ini` stay where tests may read them, without their
pytest sections. Everything goes back once the verifier is done.
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import shutil
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harnesspro.sandbox.contract import Mount

HOOK = re.compile(
    r"conftest\.py|\.?pytest\.(ini|toml)|(site|user)customize(\..*)?|.*\.pth", re.IGNORECASE
)
SECTIONED = {"pyproject.toml": "tool.pytest", "setup.cfg": "tool:pytest", "tox.ini": "pytest"}
"""Shared configuration files and the section pytest reads from each."""
SECTION_HEAD = re.compile(r"^\s*\[+\s*([^\]]+?)\s*\]+\s*(#.*)?$")


@dataclass(frozen=True)
class Hidden:
    """One entry moved aside: where it was (host) and where it waits."""

    path: Path
    aside: Path
    stripped: bool


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def hook_entries(mounts: list[Mount]) -> Iterator[tuple[str, Path]]:
    """(container path, host path) of every hook-named entry in the writable mounts; links
    are never followed (a linked folder is not searched)."""
    for mount in mounts:
        if not mount.writable or not Path(mount.source).is_dir():
            continue
        root = Path(mount.source)
        for folder, dirs, files in os.walk(root):
            for name in [*files, *dirs]:
                if HOOK.fullmatch(name) or name in SECTIONED:
                    host = Path(folder) / name
                    yield f"{mount.target.rstrip('/')}/{host.relative_to(root)}", host


def clean_hooks(mounts: list[Mount]) -> dict[str, str]:
    """Container path -> sha256 of each hook-named regular file of a clean layout."""
    return {
        target: digest(host)
        for target, host in hook_entries(mounts)
        if host.is_file() and not host.is_symlink()
    }


def _pytest_free(text: str, section: str) -> str | None:
    """The text without the section pytest reads (None when it still has one after)."""
    kept, skipping = [], False
    for line in text.splitlines(keepends=True):
        head = SECTION_HEAD.match(line)
        if head:
            name = head.group(1).strip().strip('"').lower()
            skipping = name == section or name.startswith(section + ".")
        if not skipping:
            kept.append(line)
    out = "".join(kept)
    return out if not _has_section(out, section) else None


def _has_section(text: str, section: str) -> bool:
    """Whether pytest could read a section from this text (unparseable: assume so)."""
    try:
        if section == "tool.pytest":
            return "pytest" in tomllib.loads(text).get("tool", {})
        parser = configparser.RawConfigParser(strict=False)
        parser.read_string(text)
        return any(s.strip().lower() == section for s in parser.sections())
    except (tomllib.TOMLDecodeError, configparser.Error, AttributeError):
        return True


def hide_hooks(
    mounts: list[Mount], kept: dict[str, str], aside: Path
) -> tuple[list[Hidden], list[str]]:
    """Move every hook entry the clean workspace does not have as it is into `aside`; the
    entries moved, and the container paths of those that could not be (a folder the agent
    made unwritable, say)."""
    hidden: list[Hidden] = []
    stuck: list[str] = []
    for number, (target, host) in enumerate(list(hook_entries(mounts))):
        try:
            entry = _hide(host, kept.get(target), aside / str(number))
        except OSError:
            stuck.append(target)
            continue
        if entry is not None:
            hidden.append(entry)
    return hidden, stuck


def _hide(host: Path, clean: str | None, place: Path) -> Hidden | None:
    """Move one entry aside (a shared configuration file leaves a copy without its pytest
    section); None when it stays."""
    if not os.path.lexists(host):
        return None  # inside a folder moved aside already
    regular = host.is_file() and not host.is_symlink()
    if regular and clean == digest(host):
        return None
    section = SECTIONED.get(host.name)
    text = host.read_text(errors="replace") if regular and section else None
    if section and text is not None and not _has_section(text, section):
        return None
    os.rename(host, place)
    if section and text is not None:
        host.write_text(_pytest_free(text, section) or "")
    return Hidden(host, place, section is not None)


def restore_hooks(hidden: list[Hidden]) -> None:
    """Put the hidden entries back (over a stripped copy; a new entry the tests made wins)."""
    for entry in reversed(hidden):
        if entry.stripped and entry.path.is_file() and not entry.path.is_symlink():
            entry.path.unlink()
        if not os.path.lexists(entry.path):
            os.rename(entry.aside, entry.path)
        elif entry.aside.is_dir() and not entry.aside.is_symlink():
            shutil.rmtree(entry.aside)
        else:
            entry.aside.unlink()
