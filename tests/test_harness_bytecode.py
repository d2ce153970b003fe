"""A harness's bytecode written beside its sources: the same bytes `py_compile` writes for a
checked-hash .pyc, used by a read-only, never-writing interpreter in a folder it has never
seen, and ignored once the source differs."""

from __future__ import annotations

import os
import py_compile
import subprocess
import sys
from pathlib import Path

from harnesspro.execution.harness_bytecode import bytecode_files, pyc_of
from harnesspro.execution.rollout import run_rollout, write_tree
from tests.conftest import builtin_task, inputs_for


def test_the_bytes_are_what_py_compile_writes_for_a_checked_hash_pyc(tmp_path: Path) -> None:
    source = b"import os\n\ndef f(x):\n    return [x * i for i in range(3)]\n"
    (tmp_path / "m.py").write_bytes(source)
    written = py_compile.compile(
        str(tmp_path / "m.py"), dfile="<harness>", doraise=True,
        invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
    )  # fmt: skip
    assert pyc_of(source) == Path(written).read_bytes()


def imported(folder: Path, module: str) -> tuple[str, str]:
    """`module.X` as a fresh interpreter imports it from `folder`, and its verbose log."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(folder)}
    done = subprocess.run(
        [sys.executable, "-v", "-c", f"import {module}; print({module}.X)"],
        env=env, capture_output=True, text=True, check=True, cwd=folder,
    )  # fmt: skip
    return done.stdout.strip(), done.stderr


def test_a_fresh_folder_imports_from_the_bytecode_and_a_changed_source_from_itself(
    tmp_path: Path,
) -> None:
    files = {"pkg/__init__.py": b"", "pkg/mod.py": b"X = 'from the source'\n", "notes.txt": b"x"}
    extra = bytecode_files(files)
    tag = sys.implementation.cache_tag
    assert set(extra) == {f"pkg/__pycache__/__init__.{tag}.pyc", f"pkg/__pycache__/mod.{tag}.pyc"}
    root = write_tree(tmp_path / "a", {**files, **extra})
    root.chmod(0o555)  # as the sandbox mounts it: nothing can be written there
    value, log = imported(root, "pkg.mod")
    assert value == "from the source"
    assert f"pkg/__pycache__/mod.{tag}.pyc matches" in log  # the bytecode was used
    # the same bytecode beside another source: the hash differs, the source wins
    other = write_tree(tmp_path / "b", {**files, **extra, "pkg/mod.py": b"X = 'edited'\n"})
    value, log = imported(other, "pkg.mod")
    assert value == "edited" and f"mod.{tag}.pyc matches" not in log


def test_sources_that_do_not_compile_or_bring_their_own_bytecode_are_left_alone() -> None:
    tag = sys.implementation.cache_tag
    own = {"a.py": b"X = 1\n", f"__pycache__/a.{tag}.pyc": b"theirs", "b.py": b"def (:\n"}
    assert bytecode_files(own) == {}


PROBE = """import json, os, subprocess, sys
found = subprocess.run([sys.executable, "-v", "-c", "import probe.util"], cwd="/harness",
                       capture_output=True, text=True).stderr
used = "probe/__pycache__/util." in found and "matches" in found
with open(os.path.join(os.environ["HARNESSPRO_OUT"], "trajectory.jsonl"), "w") as out:
    out.write(json.dumps({"type": "probe", "bytecode_used": used}) + "\\n")
"""


def test_in_the_sandbox_the_harness_imports_its_modules_from_the_bytecode() -> None:
    harness = {
        "harness.toml": b'[harness]\nname = "probe"\ncommand = ["{python}", "-m", "probe"]\n',
        "probe/__init__.py": b"",
        "probe/__main__.py": PROBE.encode(),
        "probe/util.py": b"X = 1\n",
    }
    result = run_rollout(inputs_for(builtin_task("humanize_bytes_script"), 0, harness))
    assert '"bytecode_used": true' in result.trajectory, result.reason


def test_no_more_than_a_megabyte_of_sources_is_compiled_outside_the_sandbox() -> None:
    big = b"X = 1\n" + b"#" * (200 * 1024) + b"\n"  # ~200 KB each: five fit in 1 MB, not six
    files = {f"m{i}.py": big.replace(b"X = 1", f"X = {i}".encode()) for i in range(8)}
    assert len(bytecode_files(files)) == 5
