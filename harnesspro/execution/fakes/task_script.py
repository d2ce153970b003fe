"""The scripted policy's knowledge of a built-in task: the reference solution's steps (the
trusted side; the harness never sees it), the paths it reads, and its look-around commands."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from harnesspro.core.records import Task
from harnesspro.execution.fakes import variants
from harnesspro.tasks.loader import builtin_suite_dir, reference_steps, workspace_files
from harnesspro.tasks.runtime import input_files

VOCAB = (
    "inspect",
    "the",
    "files",
    "first",
    "then",
    "apply",
    "the",
    "change",
    "carefully",
    "and",
    "confirm",
    "the",
    "output",
    "matches",
    "the",
    "requested",
    "format",
    "before",
    "moving",
    "on",
    "to",
    "the",
    "next",
    "part",
    "of",
    "the",
    "task",
)


PATH_RE = re.compile(r"`(/[^`\s]+)`")


SKIM_LINES = 40  # a skimmed read shows this many lines


@dataclass(frozen=True)
class TaskScript:
    """What the policy knows about one task (trusted side only)."""

    instruction: str
    workdir: str
    steps: tuple[str, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    category: str = ""
    difficulty: str = "medium"
    long_inputs: tuple[str, ...] = ()  # inputs a skimmed read shows only in part
    variants: tuple[tuple[str, str], ...] = ()  # (output file, kind) its official tests accept

    def own_outputs(self) -> tuple[str, ...]:
        """The outputs inside the working folder, the only files a slip may spoil: a path the
        instruction names elsewhere (/etc/passwd, /bin/sh) belongs to the system, and under
        the `local` backend it is the host's."""
        return tuple(p for p in self.outputs if PurePosixPath(p).is_relative_to(self.workdir))


@dataclass(frozen=True)
class Action:
    kind: str  # explore | slip | quiet | step | recheck | verify
    command: str
    index: int = -1  # slip and quiet: the reference step that slipped


def script_for(task: Task) -> TaskScript:
    """Build the policy's knowledge of a task from its folder."""
    workspace = workspace_files(task)
    # Where the image puts them (the Dockerfile's COPY lines), not only the working folder.
    files = input_files(task)
    mentioned = PATH_RE.findall(task.instruction)
    builtin = task.path.parent == builtin_suite_dir()
    long = tuple(
        f"{task.workdir}/{name}" for name, data in workspace.items() if data.count(b"\n") > 40
    )
    return TaskScript(
        instruction=task.instruction,
        workdir=task.workdir,
        steps=tuple(reference_steps(task)),
        inputs=files,
        outputs=tuple(dict.fromkeys(p for p in mentioned if p not in files)),
        category=task.category,
        difficulty=task.difficulty,
        long_inputs=long,
        variants=tuple(variants.accepted().get(task.id, [])) if builtin else (),
    )


def styled_steps(script: TaskScript, variant: int) -> tuple[str, ...]:
    """The reference steps in a profile's output style (its `variant` bits; the scripted
    policy's model 14): the chosen rewrites run right after the last step."""
    chosen = variants.chosen(script.variants, variant)
    if not chosen or not script.steps:
        return script.steps
    rewrites = [variants.rewrite_command(kind, path) for path, kind in chosen]
    return (*script.steps[:-1], "\n".join([script.steps[-1], *rewrites]))


def look_command(rng: random.Random, script: TaskScript, skim: bool = False) -> str:
    u, v = rng.random(), rng.random()
    if not script.inputs or u < 0.3:
        return f"ls -la {script.workdir}"
    path = script.inputs[int(v * len(script.inputs))]
    reader = f"head -n {SKIM_LINES}" if skim else "cat"
    return [f"{reader} {path}", f"head -n {SKIM_LINES} {path}", f"wc -l {path}"][int(u * 10) % 3]


def stream(seed: str, *purpose: object) -> random.Random:
    """An independent random stream per decision, so that changing one decision's odds (a
    different prompt, say) leaves every other draw as it was: common random numbers."""
    return random.Random(":".join(map(str, (seed, *purpose))))
