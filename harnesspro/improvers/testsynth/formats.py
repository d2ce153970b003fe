"""Canonical forms of output files, so that a varied but equal output compares equal.

Structured formats (JSON, JSON Lines, YAML, TOML, INI, CSV/TSV) are parsed and compared as
structures: key order and whitespace never matter. Archives compare by their members (their
bytes embed timestamps), Python by its syntax tree (formatting and comments do not matter),
other scripts without comments and blank lines. Plain text ignores line endings and trailing
whitespace unless the instruction fixes the exact text, and row order only where the
instruction says nothing about order.
"""

from __future__ import annotations

import ast
import configparser
import csv
import gzip
import io
import json
import re
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from typing import Any

import yaml

ARCHIVES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".gz", ".zip")
STRUCTURED = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".csv": "csv",
    ".tsv": "tsv",
}
SCRIPTS = (".sh", ".bash", ".js", ".rb", ".pl")


@dataclass(frozen=True)
class Strictness:
    """What the instruction fixes about output text."""

    exact_text: bool = False
    """Line endings, trailing whitespace and quoting are part of the answer."""
    rows_free: bool = False
    """The instruction says nothing about order: rows and lines compare as a multiset."""


def kind_of(name: str, data: bytes) -> str:
    """The format a file is compared in: a STRUCTURED value, archive, python, script, text."""
    lower = name.lower()
    if lower.endswith(ARCHIVES):
        return "archive"
    for suffix, kind in STRUCTURED.items():
        if lower.endswith(suffix):
            return kind
    if lower.endswith(".py") or data.startswith(b"#!") and b"python" in data.split(b"\n")[0]:
        return "python"
    if lower.endswith(SCRIPTS) or data.startswith(b"#!"):
        return "script"
    return "text"


def parse(kind: str, text: str) -> Any:
    """The parsed structure of a structured file; raises ValueError when it does not parse."""
    try:
        if kind == "json":
            return json.loads(text)
        if kind == "jsonl":
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        if kind == "yaml":
            return yaml.safe_load(text)
        if kind == "toml":
            return tomllib.loads(text)
        if kind == "ini":
            parser = configparser.ConfigParser(interpolation=None, strict=False)
            parser.read_string(text)
            return {s: dict(parser.items(s, raw=True)) for s in parser.sections()}
        if kind in ("csv", "tsv"):
            rows = csv.reader(io.StringIO(text), delimiter="\t" if kind == "tsv" else ",")
            return [[cell.strip() for cell in row] for row in rows if any(c.strip() for c in row)]
    except (ValueError, yaml.YAMLError, configparser.Error, csv.Error, RecursionError) as exc:
        raise ValueError(str(exc)) from None
    raise ValueError(f"not a structured format: {kind}")


def _text(data: bytes, strict: Strictness) -> str:
    text = data.decode("utf-8", errors="replace")
    if not strict.exact_text:
        lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
        text = "\n".join(lines).strip("\n")
    if strict.rows_free:
        text = "\n".join(sorted(text.split("\n")))
    return text


def _archive(name: str, data: bytes) -> str:
    """Member names and contents; raw bytes when the archive does not open."""
    try:
        if name.lower().endswith(ARCHIVES[:5]):
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                members = sorted((m for m in tar.getmembers() if m.isfile()), key=lambda m: m.name)
                parts = [(m.name, (tar.extractfile(m) or io.BytesIO()).read()) for m in members]
        elif name.lower().endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                parts = [(n, archive.read(n)) for n in sorted(archive.namelist())]
        else:
            parts = [("", gzip.decompress(data))]
    except (tarfile.TarError, OSError, zipfile.BadZipFile, EOFError, ValueError):
        return data.hex()
    return json.dumps([[n, body.hex()] for n, body in parts])


def _script(text: str) -> str:
    lines = [line.strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line and not re.match(r"#(?!!)", line))


def canonical(name: str, data: bytes, strict: Strictness) -> str:
    """The form in which two versions of a file are equal when they mean the same."""
    kind = kind_of(name, data)
    text = data.decode("utf-8", errors="replace")
    if kind == "archive":
        return _archive(name, data)
    if kind == "python":
        try:
            return ast.dump(ast.parse(text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return "unparsable:" + _text(data, Strictness())
    if kind == "script":
        return _script(text)
    if kind in ("csv", "tsv") and strict.exact_text:
        return _text(data, strict)
    if kind in STRUCTURED.values():
        try:
            value = parse(kind, text)
        except ValueError:
            return "unparsable:" + _text(data, strict)
        if kind in ("csv", "tsv") and strict.rows_free and isinstance(value, list):
            value = value[:1] + sorted(value[1:])
        return json.dumps(value, sort_keys=True, default=str)
    return _text(data, strict)


def parses(name: str, data: bytes) -> bool | None:
    """Whether a structured or Python file parses; None for formats without a grammar."""
    kind = kind_of(name, data)
    text = data.decode("utf-8", errors="replace")
    if kind == "python":
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        return True
    if kind not in STRUCTURED.values():
        return None
    try:
        parse(kind, text)
    except ValueError:
        return False
    return True


def keys(name: str, data: bytes) -> set[str]:
    """Every key of a structured file (object keys at any depth, sections, CSV header)."""
    kind = kind_of(name, data)
    if kind not in STRUCTURED.values():
        return set()
    try:
        value = parse(kind, data.decode("utf-8", errors="replace"))
    except ValueError:
        return set()
    if kind in ("csv", "tsv"):
        return set(value[0]) if value else set()
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found |= {str(k) for k in item}
            stack += list(item.values())
        elif isinstance(item, list):
            stack += item
    return found
