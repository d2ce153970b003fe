"""A mechanism as a recipe over declared knobs: steps that set a knob or add an item to a list
or set knob, and files the recipe writes first (a prompt file an added item names). A recipe
applies to a harness when every knob it names is declared with a type and values that admit
its steps; applying it edits only the knobs' files (and writes its own files)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from harnesspro.core.knobs import Knob, load_knobs, type_ok
from harnesspro.harness.knob_files import add_item, read_value, write_value

Knobs = Mapping[str, Knob]


@dataclass(frozen=True)
class Step:
    """Set `knob` to `value`, or (`add`) add the item `value` to a list or set knob."""

    knob: str
    value: Any
    op: Literal["set", "add"] = "set"


@dataclass(frozen=True)
class Recipe:
    steps: tuple[Step, ...]
    files: tuple[tuple[str, str], ...] = ()  # (path in the harness, text), written first

    @property
    def knobs(self) -> tuple[str, ...]:
        """The knobs the recipe needs, in step order."""
        return tuple(dict.fromkeys(s.knob for s in self.steps))

    def setting(self) -> tuple[str, Any] | None:
        """(knob, value) when the recipe is one `set` and no file: a plain knob setting."""
        if len(self.steps) == 1 and not self.files and self.steps[0].op == "set":
            return self.steps[0].knob, self.steps[0].value
        return None


def set_to(knob: str, value: Any) -> Recipe:
    return Recipe((Step(knob, value),))


def step_problem(step: Step, knob: Knob | None) -> str:
    """'' when the declared `knob` admits the step, else why not."""
    if knob is None:
        return f"knob {step.knob} is not declared"
    if step.op == "add":
        if not knob.collection:
            return f"knob {knob.name} is a {knob.type}, not a list or set"
        return "" if not knob.values or step.value in knob.values else (
            f"knob {knob.name} does not allow the item {step.value!r}"
        )  # fmt: skip
    if not type_ok(knob.type, step.value):
        return f"knob {knob.name} is a {knob.type}; {step.value!r} is not"
    if knob.collection:
        items = step.value
        bad = [x for x in items if knob.values and x not in knob.values]
        return f"knob {knob.name} does not allow the item {bad[0]!r}" if bad else ""
    if knob.values and step.value not in knob.values:
        return f"knob {knob.name} allows {list(knob.values)}, not {step.value!r}"
    return ""


def problem(recipe: Recipe, knobs: Knobs) -> str:
    """'' when the recipe applies to a harness declaring `knobs`, else the first reason."""
    for step in recipe.steps:
        found = step_problem(step, knobs.get(step.knob))
        if found:
            return found
    return ""


def knobs_of(root: Path) -> dict[str, Knob]:
    """The knobs the harness at `root` declares, by name (their files are checked when they
    are read or written)."""
    return {k.name: k for k in load_knobs(root, files=False)}


def apply(recipe: Recipe, root: Path, knobs: Knobs) -> None:
    """Edit the harness at `root`: the recipe's files, then each step on its knob's file."""
    reason = problem(recipe, knobs)
    if reason:
        raise ValueError(f"the recipe does not apply: {reason}")
    for rel, text in recipe.files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for step in recipe.steps:
        if step.op == "add":
            add_item(root, knobs[step.knob], step.value)
        else:
            write_value(root, knobs[step.knob], step.value)


def holds(recipe: Recipe, root: Path, knobs: Knobs) -> bool:
    """Whether every step's value (or item) and every file is in place at `root`."""
    for rel, text in recipe.files:
        if not (root / rel).is_file() or (root / rel).read_text() != text:
            return False
    for step in recipe.steps:
        current = read_value(root, knobs[step.knob])
        inside = isinstance(current, list) and step.value in current
        if not (inside if step.op == "add" else current == step.value):
            return False
    return True
