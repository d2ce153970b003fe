"""The commands a simulated model issues for a task: look-arounds, the reference steps and the
ways they go wrong, a check of its work, no-op commands; and the reverse, which of those a
past command was (the world reads its own history off the conversation)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from harnesspro.execution.fakes import slips
from harnesspro.execution.fakes.task_script import TaskScript

IDLE = ("exit 0", "true", ":", "echo done")
QUIET_KINDS = ("wrong_value", "off_by_one", "missing_rows")
HEREDOC = re.compile(r"<<-?\s*'?\"?(\w+)'?\"?[^\n]*\n(.*?)\n\1\b", re.S)
PRINTF = re.compile(r"printf\s+'((?:[^'\\]|\\.)*)'\s*>>?\s*(\S+)")
SCRIPT_NAME = re.compile(r"\.(?:py|sh)$|^[^.]+$")


@dataclass(frozen=True)
class Move:
    """One past command as the world classifies it: `kind` in look | step | typo | script |
    near | quiet | skip | check | idle, and the reference step it was for (-1: none)."""

    kind: str
    step: int = -1


def look(rng: random.Random, script: TaskScript, whole: float) -> str:
    """A look-around: a listing, or a read of an input (whole with chance `whole`)."""
    u, v, w = rng.random(), rng.random(), rng.random()
    if not script.inputs or u < 0.25:
        return f"ls -la {script.workdir}"
    path = script.inputs[int(v * len(script.inputs))]
    if u > 0.9:
        return f"wc -l {path}"
    return f"cat {path}" if w < whole else f"head -n 40 {path}"


def check(script: TaskScript) -> str:
    """A look at its own outputs before answering."""
    outputs = " ".join(p for p in script.outputs if not p.endswith("/")) or script.workdir
    return f"ls -la {script.workdir} && head -n 50 {outputs}"


def written(script: TaskScript, step: str) -> list[str]:
    """The outputs inside the working folder that `step` names (files, not folders)."""
    return [p for p in script.own_outputs() if not p.endswith("/") and p in step]


def as_command(step: str) -> str | None:
    """The contents of the file `step` writes, as the model would mistakenly run them (a
    heredoc's body, or a printf-written script), or None when it writes no script."""
    doc = HEREDOC.search(step)
    if doc:
        return doc.group(2)
    printed = PRINTF.search(step)
    if printed and SCRIPT_NAME.search(PurePosixPath(printed.group(2)).name):
        return printed.group(1).encode().decode("unicode_escape").rstrip("\n")
    return None


def is_python(body: str) -> bool:
    """Whether a script body reads as Python (then a fenced reply puts it in a python block)."""
    return bool(re.search(r"^\s*(?:import |from \w+ import|def |print\()", body, re.M))


def near_name(path: str) -> str:
    """A slightly wrong name for an output: `count.txt` -> `counts.txt`."""
    pure = PurePosixPath(path)
    stem = pure.stem + ("_new" if pure.stem.endswith("s") else "s")
    return str(pure.with_name(stem + pure.suffix))


def near_miss(script: TaskScript, step: str) -> str | None:
    """`step` writing its first named output under a slightly wrong name, or None."""
    paths = written(script, step)
    return step.replace(paths[0], near_name(paths[0])) if paths else None


def quiet(script: TaskScript, step: str, rng: random.Random) -> str:
    """`step` followed by a silent spoiling of an output it names, or a harmless listing
    instead of the step when it names none (a step silently skipped)."""
    paths = written(script, step)
    if not paths:
        return slips.skipped(script.workdir)
    kind = QUIET_KINDS[int(rng.random() * len(QUIET_KINDS))]
    return f"{step}\n{slips.corruption(kind, paths[-1])}"


def classify(script: TaskScript, command: str) -> Move:
    """Which move a past command was."""
    for i, step in enumerate(script.steps):
        if command == step:
            return Move("step", i)
        if command == slips.typo(step):
            return Move("typo", i)
        if command == as_command(step):
            return Move("script", i)
        if command == near_miss(script, step):
            return Move("near", i)
        if command.startswith(step + "\n"):
            return Move("quiet", i)
    if command == slips.skipped(script.workdir):
        return Move("skip")
    if command == check(script):
        return Move("check")
    return Move("idle") if command in IDLE else Move("look")
