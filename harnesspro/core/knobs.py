"""A harness's tunable surface: the `[[knob]]` tables of its `harness.toml`, parsed strictly.

A knob names one setting the search may change: the file it lives in, where in that file (a
dotted `key` into a YAML, TOML or JSON file; a `marker`-delimited text region of any file; or,
with neither, the whole file), its type, the values allowed, and the lever it belongs to.
Catalog mechanisms are recipes over knobs (harness/mechanisms/recipes.py); a knob with
`values` is also searched on its own, one gene per value (harness/mechanisms/genes.py).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

LEVERS = (
    "prompt", "context management", "step cap", "retry/timeout policy", "tool schema",
    "answer extraction", "retrieval policy", "reasoning effort",
)  # fmt: skip
"""The levers of the method: every knob and every catalog mechanism belongs to one."""

KNOB_TYPES = ("int", "float", "bool", "str", "text", "list", "set")
"""`text` is a string that may span lines (the only type of a marker or whole-file knob);
`list` is ordered (an added item goes last), `set` is kept sorted."""

KEY_SUFFIXES = (".yaml", ".yml", ".toml", ".json")
FIELDS = ("name", "file", "key", "marker", "type", "values", "lever", "about")
NAME = re.compile(r"[a-z][a-z0-9_]{0,47}")
KEY_PART = re.compile(r"[A-Za-z0-9_-]+")
MANIFEST = "harness.toml"


class KnobError(ValueError):
    """A `[[knob]]` table that does not parse; the message is one sentence naming the
    manifest and the field."""


@dataclass(frozen=True)
class Knob:
    """One declared setting. `values` empty: any value of the type (the knob is then only
    set by recipes and written changes, never searched on its own)."""

    name: str
    file: str
    type: str
    lever: str
    key: str = ""
    marker: str = ""
    values: tuple[Any, ...] = ()
    about: str = ""

    @property
    def where(self) -> str:
        """Where the value lives, in words (for messages)."""
        at = f"key {self.key}" if self.key else f"marker {self.marker}" if self.marker else ""
        return f"{self.file} ({at})" if at else f"{self.file} (whole file)"

    @property
    def collection(self) -> bool:
        return self.type in ("list", "set")


def type_ok(kind: str, value: Any) -> bool:
    """Whether `value` is of knob type `kind` (an item of a list or set may be any value)."""
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind in ("str", "text"):
        return isinstance(value, str)
    return isinstance(value, list)


def _fail(source: str, index: int, name: str, field: str, what: str) -> KnobError:
    label = f"[[knob]] {index + 1}" + (f" ({name})" if name else "")
    return KnobError(f"{source}: {label} field '{field}' {what}")


def _text_field(table: dict[str, Any], field: str, fail: Any, required: bool = True) -> str:
    value = table.get(field, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise fail(field, "must be a non-empty string" if required else "must be a string")
    return value


def _check_file(file: str, immutable: tuple[str, ...], fail: Any) -> None:
    path = PurePosixPath(file)
    if path.is_absolute() or ".." in path.parts or "\\" in file:
        raise fail("file", f"must be a path inside the harness folder, not {file!r}")
    if file in immutable or file == MANIFEST:
        raise fail("file", f"names {file}, which the manifest makes immutable")


def _check_where(table: dict[str, Any], file: str, kind: str, fail: Any) -> tuple[str, str]:
    key, marker = table.get("key", ""), table.get("marker", "")
    if key and marker:
        raise fail("key", "and 'marker' exclude each other; give one (or neither: the whole file)")
    if key:
        if not isinstance(key, str) or not all(KEY_PART.fullmatch(p) for p in key.split(".")):
            raise fail("key", f"must be a dotted path such as agent.step_limit, not {key!r}")
        if not file.endswith(KEY_SUFFIXES):
            raise fail("key", f"needs a YAML, TOML or JSON file, not {file}")
        return key, ""
    if marker and (not isinstance(marker, str) or "\n" in marker or not marker.strip()):
        raise fail("marker", "must be a one-line string")
    if kind != "text":
        raise fail("type", f"must be 'text' for a {'marker' if marker else 'whole-file'} knob")
    return "", str(marker)


def _check_values(table: dict[str, Any], kind: str, fail: Any) -> tuple[Any, ...]:
    if "values" not in table:
        return ()
    values = table["values"]
    if not isinstance(values, list) or not values:
        raise fail("values", "must be a non-empty array")
    for value in values:
        if not kind_allows(kind, value):
            raise fail("values", f"holds {value!r}, which is not of type {kind}")
    if len({repr(v) for v in values}) < len(values):
        raise fail("values", "repeats a value")
    return tuple(values)


def kind_allows(kind: str, value: Any) -> bool:
    """Whether `value` may be declared among the values of a knob of type `kind` (for a list
    or set: an item)."""
    return kind in ("list", "set") or type_ok(kind, value)


def parse_knob(
    table: Any, index: int, source: str, immutable: tuple[str, ...], seen: set[str]
) -> Knob:
    """One `[[knob]]` table, checked field by field."""
    if not isinstance(table, dict):
        raise KnobError(f"{source}: [[knob]] {index + 1} must be a table")
    raw = table.get("name")
    name = raw if isinstance(raw, str) else ""

    def fail(field: str, what: str) -> KnobError:
        return _fail(source, index, name, field, what)

    unknown = sorted(set(table) - set(FIELDS))
    if unknown:
        raise fail(unknown[0], f"is not a knob field (fields: {', '.join(FIELDS)})")
    if not NAME.fullmatch(name):
        raise fail("name", "must be lower_snake_case (a letter, then letters, digits or _)")
    if name in seen:
        raise fail("name", "repeats another knob's name")
    file = _text_field(table, "file", fail)
    _check_file(file, immutable, fail)
    kind = _text_field(table, "type", fail)
    if kind not in KNOB_TYPES:
        raise fail("type", f"must be one of {', '.join(KNOB_TYPES)}, not {kind!r}")
    key, marker = _check_where(table, file, kind, fail)
    lever = _text_field(table, "lever", fail)
    if lever not in LEVERS:
        raise fail("lever", f"must be one of {', '.join(LEVERS)}, not {lever!r}")
    about = _text_field(table, "about", fail, required=False)
    values = _check_values(table, kind, fail)
    return Knob(name, file, kind, lever, key, marker, values, about)


def parse_knobs(manifest: dict[str, Any], source: str = MANIFEST) -> tuple[Knob, ...]:
    """The manifest's knobs in declaration order (none: an empty tuple); KnobError names the
    first bad field."""
    tables = manifest.get("knob", [])
    if not isinstance(tables, list):
        raise KnobError(f"{source}: 'knob' must be an array of tables, written [[knob]]")
    section = manifest.get("harness")
    immutable = section.get("immutable", []) if isinstance(section, dict) else []
    frozen = tuple(str(p) for p in immutable) if isinstance(immutable, list) else ()
    seen: set[str] = set()
    knobs = []
    for index, table in enumerate(tables):
        knob = parse_knob(table, index, source, frozen, seen)
        seen.add(knob.name)
        knobs.append(knob)
    return tuple(knobs)


def load_knobs(harness_dir: Path, files: bool = True) -> tuple[Knob, ...]:
    """The knobs `harness_dir/harness.toml` declares, each file present (unless `files` is
    False: an edit needs only the files of the knobs it sets); KnobError names the manifest
    and the field when it does not parse."""
    source = str(harness_dir / MANIFEST)
    try:
        manifest = tomllib.loads((harness_dir / MANIFEST).read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise KnobError(f"{source} cannot be read as TOML ({exc})") from None
    knobs = parse_knobs(manifest, source)
    for index, knob in enumerate(knobs if files else ()):
        path = harness_dir / knob.file
        if not path.is_file():
            raise _fail(source, index, knob.name, "file", f"names {knob.file}, which is missing")
        if knob.marker:
            problem = region(path.read_text(), knob.marker)
            if isinstance(problem, str):
                raise _fail(source, index, knob.name, "marker", f"{problem} in {knob.file}")
    return knobs


def region(text: str, marker: str) -> tuple[int, int] | str:
    """The character span of a marker knob's value: the lines between the one line holding
    `BEGIN <marker>` and the one line after it holding `END <marker>` (both lines stay); or
    what is wrong, as a clause."""
    lines = text.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if f"BEGIN {marker}" in line]
    ends = [i for i, line in enumerate(lines) if f"END {marker}" in line and i not in begins]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        return f"needs one line with 'BEGIN {marker}' and one later line with 'END {marker}'"
    start = sum(len(line) for line in lines[: begins[0] + 1])
    return start, start + sum(len(line) for line in lines[begins[0] + 1 : ends[0]])
