"""Setting one dotted key of a TOML file in place: the key's line is rewritten (or added at
the end of its table, or the table added at the end of the file), so the rest of the file,
comments included, stays as it was. Values: numbers, booleans, strings, arrays of those."""

from __future__ import annotations

import json
import math
import re
import tomllib
from typing import Any

HEADER = re.compile(r"\s*\[([^\[\]]+)\]\s*(#.*)?$")


def literal(value: Any) -> str:
    """`value` written as a TOML literal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    raise ValueError(f"{value!r} cannot be written to a TOML file by a knob")


def _table(line: str) -> str | None:
    match = HEADER.match(line)
    return ".".join(p.strip().strip('"') for p in match.group(1).split(".")) if match else None


def set_toml_key(text: str, key: str, value: Any) -> str:
    """`text` with the dotted `key` set to `value`."""
    table, _, leaf = key.rpartition(".")
    lines = text.splitlines(keepends=True)
    current, insert_at, found = "", 0 if not table else None, None
    assign = re.compile(rf"(\s*){re.escape(leaf)}\s*=")
    for i, line in enumerate(lines):
        name = _table(line)
        if name is not None:
            current = name
            if name == table:
                insert_at = i + 1
            continue
        if current == table and assign.match(line):
            found = i
            break
        if current == table and line.strip():
            insert_at = i + 1  # after the table's last line
    new = f"{leaf} = {literal(value)}\n"
    if found is not None:
        lines[found] = assign.match(lines[found]).group(1) + new  # type: ignore[union-attr]
    elif insert_at is not None:
        lines.insert(insert_at, new)
    else:
        tail = "" if not lines or lines[-1].endswith("\n") else "\n"
        lines.append(f"{tail}\n[{table}]\n{new}")
    out = "".join(lines)
    if _read(out, key) != value:
        raise ValueError(f"the TOML key {key} could not be set in place (a multi-line value?)")
    return out


def _read(text: str, key: str) -> Any:
    node: Any = tomllib.loads(text)
    for part in key.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node
