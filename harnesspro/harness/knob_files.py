"""Reading and writing a knob's value in its file: a dotted key of a YAML or JSON file (the
document read, changed and written back), of a TOML file (the key's line rewritten in place,
so comments stay), a marker region of any file, or a whole file."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import yaml

from harnesspro.core import yamlio
from harnesspro.core.knobs import Knob, region
from harnesspro.harness.toml_edit import set_toml_key

MISSING = None
"""What a key knob reads when its key is absent (the harness's own default applies)."""


class _Dumper(yamlio.DUMPER):  # type: ignore[valid-type,misc]
    """yamlio's dumper, with a string of several lines written as a literal block (|), so a
    template a knob sets stays readable in its file."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = (
        "|" if "\n" in value and all(line == line.rstrip() for line in value.split("\n")) else None
    )
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def _load(knob: Knob, text: str) -> Any:
    if knob.file.endswith(".json"):
        return json.loads(text)
    if knob.file.endswith(".toml"):
        return tomllib.loads(text)
    return yamlio.load(text)


def _dump(knob: Knob, document: Any) -> str:
    if knob.file.endswith(".json"):
        return json.dumps(document, indent=2) + "\n"
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False)


def _get(document: Any, key: str) -> Any:
    for part in key.split("."):
        if not isinstance(document, dict) or part not in document:
            return MISSING
        document = document[part]
    return document


def _put(document: Any, key: str, value: Any) -> Any:
    """`document` with `value` at the dotted `key` (missing or non-table parents become
    tables)."""
    root = document if isinstance(document, dict) else {}
    parts = key.split(".")
    node = root
    for part in parts[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[parts[-1]] = value
    return root


def read_value(root: Path, knob: Knob) -> Any:
    """The knob's current value in the harness at `root` (MISSING for an absent key)."""
    text = (root / knob.file).read_text()
    if knob.key:
        return _get(_load(knob, text), knob.key)
    if knob.marker:
        span = region(text, knob.marker)
        if isinstance(span, str):
            raise ValueError(f"knob {knob.name}: {knob.file} {span}")
        return text[span[0] : span[1]]
    return text


def write_value(root: Path, knob: Knob, value: Any) -> None:
    """Set the knob to `value` in the harness at `root`: an edit of the knob's file only."""
    path = root / knob.file
    text = path.read_text()
    if knob.key and knob.file.endswith(".toml"):
        path.write_text(set_toml_key(text, knob.key, value))
    elif knob.key:
        path.write_text(_dump(knob, _put(_load(knob, text), knob.key, value)))
    elif knob.marker:
        span = region(text, knob.marker)
        if isinstance(span, str):
            raise ValueError(f"knob {knob.name}: {knob.file} {span}")
        body = value if not value or value.endswith("\n") else value + "\n"
        path.write_text(text[: span[0]] + body + text[span[1] :])
    else:
        path.write_text(value)


def with_item(knob: Knob, current: Any, item: Any) -> list[Any]:
    """A list knob's items with `item` last (an equal item moved there); a set knob's items
    with `item` among them, sorted."""
    items = list(current) if isinstance(current, list) else []
    if knob.type == "set":
        kept = {json.dumps(x, sort_keys=True): x for x in [*items, item]}
        return [kept[k] for k in sorted(kept)]
    return [x for x in items if x != item] + [item]


def add_item(root: Path, knob: Knob, item: Any) -> None:
    """Add `item` to the list or set knob in the harness at `root`."""
    write_value(root, knob, with_item(knob, read_value(root, knob), item))
