"""Tool environments share compiled modules: each source compiled once per machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from harnesspro.tasks.bytecode import compile_shared

MODULE = "VALUE = 6 * 7\n"


def fake_env(root: Path, files: dict[str, str]) -> Path:
    """A folder laid out as a venv's site-packages holding `files`."""
    site = root / "lib" / "python3.11" / "site-packages"
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return site


def test_a_source_is_compiled_once_and_linked_into_every_environment(tmp_path: Path) -> None:
    store = tmp_path / "bytecode"
    first = fake_env(tmp_path / "a", {"pkg/__init__.py": "", "pkg/mod.py": MODULE})
    second = fake_env(tmp_path / "b", {"pkg/__init__.py": "", "pkg/mod.py": MODULE})
    assert compile_shared(tmp_path / "a", store) == 2
    assert compile_shared(tmp_path / "b", store) == 0  # both sources seen already
    pyc = Path("pkg") / "__pycache__" / f"mod.{sys.implementation.cache_tag}.pyc"
    assert os.stat(first / pyc).st_ino == os.stat(second / pyc).st_ino
    # PEP 552 header: flags word 1 = hash-based, source not checked.
    assert int.from_bytes((second / pyc).read_bytes()[4:8], "little") == 1
    # Python loads it in the second environment under that environment's file name, without
    # reading the source (an edited source still gives the compiled value).
    (second / "pkg" / "mod.py").write_text("VALUE = 0\n")
    probe = "import pkg.mod as m; print(m.VALUE, m.__file__, m.__cached__)"
    env = {**os.environ, "PYTHONPATH": str(second), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["42", str(second / "pkg" / "mod.py"), str(second / pyc)]


def test_a_file_that_does_not_compile_gets_no_bytecode(tmp_path: Path) -> None:
    site = fake_env(tmp_path / "a", {"good.py": MODULE, "py2.py": "print 'old'\n"})
    assert compile_shared(tmp_path / "a", tmp_path / "bytecode") == 1
    assert [p.name for p in (site / "__pycache__").iterdir()] == [
        f"good.{sys.implementation.cache_tag}.pyc"
    ]


def test_a_packages_own_tests_get_no_bytecode(tmp_path: Path) -> None:
    names = [
        "pkg/__init__.py",
        "pkg/core.py",
        "pkg/testing.py",  # a module named like tests is not a test folder
        "tests/__init__.py",  # a top-level package named tests is a package like any other
        "pkg/tests/__init__.py",
        "pkg/tests/test_core.py",
        "pkg/sub/test/helpers.py",
    ]
    site = fake_env(tmp_path / "env", {n: f"VALUE = {i}\n" for i, n in enumerate(names)})
    assert compile_shared(tmp_path / "env", tmp_path / "bytecode") == 4
    have = sorted(str(p.relative_to(site)) for p in site.glob("**/*.pyc"))
    tag = sys.implementation.cache_tag
    assert have == [f"pkg/__pycache__/{m}.{tag}.pyc" for m in ("__init__", "core", "testing")] + [
        f"tests/__pycache__/__init__.{tag}.pyc"
    ]
