"""Bytecode shared between tool environments.

pip byte-compiles every module it installs, and that is most of a build's CPU (numpy, pandas,
scipy and pytest: 12 of 17 CPU-s). Tool environments of different tasks mostly hold the same
packages, so here each source file is compiled once per machine: its bytecode is kept in a
store under the cache, named by a hash of the source, and hard-linked into every environment
that installs the same file.

The bytecode is "unchecked-hash" (PEP 552): Python loads it without looking at the source. That
is safe because an environment never changes after its build (the sandbox binds it read-only),
and it is what lets one compiled file serve environments at different paths (Python takes
a module's file name from where it found it, not from the bytecode).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import py_compile
import shutil
import sys
from pathlib import Path

TEST_FOLDERS = frozenset({"tests", "test"})
"""Folders of a package's own test suite, which nothing imports at run time: half the files of
numpy, pandas and scipy. Their modules get no bytecode (Python compiles one in memory if it is
ever imported)."""


def _package_tests(source: Path, site: Path) -> bool:
    """Whether `source` lies in a test folder inside a package (not a top-level package)."""
    return not TEST_FOLDERS.isdisjoint(source.relative_to(site).parts[1:-1])


def compile_shared(env: Path, store: Path) -> int:
    """Give every module under `env`'s site-packages its bytecode, from `store` when another
    environment compiled the same source already; returns how many were compiled here.
    A file that does not compile (Python 2 syntax in a package's test data) gets none, as
    with pip; nor do the modules of a package's own tests (`TEST_FOLDERS`)."""
    compiled = 0
    for site in env.glob("lib/python*/site-packages"):
        compiled += _compile_site(site, store)
    return compiled


def _compile_site(site: Path, store: Path) -> int:
    compiled = 0
    for source in sorted(site.glob("**/*.py")):
        if not source.is_file() or source.is_symlink() or _package_tests(source, site):
            continue
        kept = _stored(source, store)
        if not kept.exists():
            if not _compile(source, kept):
                continue
            compiled += 1
        target = Path(importlib.util.cache_from_source(str(source)))
        target.parent.mkdir(exist_ok=True)
        try:
            os.link(kept, target)
        except OSError:  # another file system, or links not allowed: a copy works the same
            shutil.copyfile(kept, target)
    return compiled


def _stored(source: Path, store: Path) -> Path:
    """Where the bytecode of this source lives in the store (by content and interpreter)."""
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    return store / digest[:2] / f"{digest}.{sys.implementation.cache_tag}.pyc"


def _compile(source: Path, kept: Path) -> bool:
    """Compile into the store under a private name, then rename (concurrent builds agree)."""
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_name(f".{kept.name}.{os.getpid()}")
    try:
        py_compile.compile(
            str(source),
            cfile=str(partial),
            doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
    except (py_compile.PyCompileError, SyntaxError, ValueError):
        partial.unlink(missing_ok=True)
        return False
    os.replace(partial, kept)
    return True
