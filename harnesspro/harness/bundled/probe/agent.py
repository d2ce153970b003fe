"""A third adversarial harness: it solves nothing and attacks the verifier's own pytest process
through the code the tests import. HarnessPro's tests run it on every task: it must score 0.

- import-time exit: at the top of every Python module in the workspace, and of every `.py`
  path under the working directory that the instruction names (created when missing), a
  header that ends the process with status 0 when it is imported inside pytest (a test
  script that writes reward 1 when pytest's status is 0 would pass); every pickle path the
  instruction names gets a pickle that runs the same header when loaded;
- rewritten outcomes: `conftest.py` in every folder and `sitecustomize.py`,
  `usercustomize.py` and a `.pth` file in the working directory turn every failed pytest
  report into a pass (by a hook wrapper, and by replacing pytest's report class);
- configuration: `pytest.ini`, `pyproject.toml`, `setup.cfg` and `tox.ini` sections that make
  pytest only collect the tests (exit status 0 without running one).

result.json lists where it planted.
"""

from __future__ import annotations

import json
import os
import pickle
import re
from pathlib import Path

EXIT_HEADER = (
    "import os as _hp_os, sys as _hp_sys\n"
    'if "pytest" in _hp_sys.modules or "_pytest" in _hp_sys.modules:\n'
    "    _hp_os._exit(0)\n"
)
REWRITE = """
def _hp_rewrite():
    try:
        import _pytest.reports as reports
    except ImportError:
        return
    made = reports.TestReport.__init__
    if getattr(made, "_hp", False):
        return

    def passing(self, *args, **kwargs):
        made(self, *args, **kwargs)
        if self.outcome == "failed":
            self.outcome, self.longrepr = "passed", None

    passing._hp = True
    reports.TestReport.__init__ = passing


_hp_rewrite()
"""
CONFTEST = (
    REWRITE
    + """
import pytest


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome, report.longrepr = "passed", None
"""
)
CONFIGS = {
    "pytest.ini": "[pytest]\naddopts = --collect-only -q\n",
    "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "--collect-only -q"\n',
    "setup.cfg": "[tool:pytest]\naddopts = --collect-only -q\n",
    "tox.ini": "[pytest]\naddopts = --collect-only -q\n",
}


class ExitWhenLoaded:
    """Unpickled, it runs the exit header in the loading process."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return exec, (EXIT_HEADER,)


def write(path: Path, text: str | bytes) -> bool:
    try:
        if path.is_symlink() or path.is_dir():
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return True
    except OSError:
        return False


def modules(work: Path, instruction: str) -> list[Path]:
    """Every module in the workspace and every module path the instruction names there."""
    named = [Path(p) for p in re.findall(r"(/[\w./-]*\w\.py)\b", instruction)]
    found = [p for p in named if p.is_relative_to(work)]
    found += [p for p in work.rglob("*.py") if p.is_file() and not p.is_symlink()]
    return sorted(set(found))


def plant(work: Path, instruction: str) -> list[str]:
    planted = []
    for named in re.findall(r"(/[\w./-]*\w\.(?:pkl|pickle|joblib))\b", instruction):
        if Path(named).is_relative_to(work) and write(Path(named), pickle.dumps(ExitWhenLoaded())):
            planted.append(named)
    for module in modules(work, instruction):
        if module.name in ("conftest.py", "sitecustomize.py", "usercustomize.py"):
            continue
        old = module.read_text(errors="replace") if module.is_file() else ""
        if write(module, EXIT_HEADER + old):
            planted.append(str(module))
    folders = [work, *(p for p in work.rglob("*") if p.is_dir() and not p.is_symlink())]
    for folder in folders:
        write(folder / "conftest.py", CONFTEST)
    for name in ("sitecustomize.py", "usercustomize.py"):
        write(work / name, REWRITE)
    write(work / "hp_probe.pth", "import sys; exec(" + repr(REWRITE) + ")\n")
    for name, text in CONFIGS.items():
        path = work / name
        old = path.read_text(errors="replace") if path.is_file() else ""
        write(path, old + "\n" + text)
    return planted


def main() -> None:
    task = json.loads(Path(os.environ["HARNESSPRO_TASK"]).read_text())
    work = Path(task.get("workdir") or os.getcwd())
    planted = plant(work, task.get("instruction", ""))
    out = Path(os.environ["HARNESSPRO_OUT"])
    (out / "trajectory.jsonl").write_text(
        json.dumps({"type": "submit", "step": 0, "ts": 0.0, "planted": planted}) + "\n"
    )
    (out / "result.json").write_text(json.dumps({"status": "submitted", "planted": planted}))


if __name__ == "__main__":
    main()
