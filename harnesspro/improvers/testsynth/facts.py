"""Facts of a workspace snapshot: what a synthesized test compares.

A fact is an aspect (a string naming what is looked at) and its value in one snapshot, e.g.
`kind:out.txt` -> `file`, `content:out.txt` -> a digest of the canonical content,
`git:lib:head` -> `main`, `exit:python3 check.py` -> `0`. Which aspects exist for a task is
read from its instruction only (`Reading`); their values from a snapshot. Commands the
instruction names run in the sandbox on a copy of the snapshot, never in the driver.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from harnesspro.core.fsnames import raw
from harnesspro.improvers.testsynth.formats import (
    Strictness,
    canonical,
    keys,
    kind_of,
    parse,
    parses,
)
from harnesspro.sandbox.contract import Mount, Sandbox
from harnesspro.sandbox.snapshot import Snapshot, as_snapshot
from harnesspro.sandbox.snapshot import write as write_snapshot

BACKTICKED = re.compile(r"`([^`\n]+)`")
EXACT_TEXT = re.compile(
    r"newline|line ending|trailing|byte-for-byte|byte for byte|single space|\\n|\\r|quot",
    re.IGNORECASE,
)
FREE = r"(any order|order does not matter|order doesn't matter|order is not important)"
ROWS = r"\b(lines|rows|entries|records)\b"
ROWS_FREE = re.compile(rf"{ROWS}[^.]*{FREE}|{FREE}[^.]*{ROWS}", re.IGNORECASE)
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{1,40}")
MODES = re.compile(r"\bmode|permission|executable|chmod", re.IGNORECASE)
CREATES = re.compile(r"\b(write|create|save|generate|produce|store|put)\b", re.IGNORECASE)
SENTENCE = re.compile(r"\.\s|\n")
LEAD = r"\s+(the\s+)?([\w'-]+\s+){0,2}$"  # "for the Markdown file `x`"
READS = re.compile(r"\b(for|from|of|in|on|with|at|by|under|relative to)" + LEAD, re.IGNORECASE)
INTO = re.compile(r"\b(to|into)" + LEAD, re.IGNORECASE)
INTERPRETERS = ("python3", "python", "bash", "sh", "node", "perl")
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z0-9_]*\b|[\[\]<>|]|\.\.\.")
COMMAND_TIMEOUT_S = 20.0
LINE_KINDS = ("text", "csv", "tsv", "jsonl")
"""Formats whose lines are the output's rows (not JSON, YAML, TOML or INI, whose layout is
free, nor programs)."""
NUMBER = re.compile(r"\s*-?\d+(\.\d+)?")


@dataclass(frozen=True)
class Reading:
    """What the instruction says a test may look at (stored in the frozen test)."""

    workdir: str
    paths: tuple[str, ...]
    """Working-directory paths it names, relative to the working directory."""
    outputs: tuple[str, ...] = ()
    """Those it asks to write, create or save: they must exist afterwards."""
    free_rows: tuple[str, ...] = ()
    """Those whose clause says their lines or rows may come in any order."""
    commands: tuple[str, ...] = ()
    """Complete commands it names (no placeholders), run from the working directory."""
    names: tuple[str, ...] = ()
    """Quoted words that may be keys or columns of a structured output."""
    strict: Strictness = Strictness()
    modes: bool = False
    """The instruction is about file modes: they are compared."""
    authors: bool = True
    """Commit authors are compared (not when it says "any committer identity")."""


def read_instruction(instruction: str, workdir: str) -> Reading:
    """The aspects an instruction makes checkable."""
    root = workdir.rstrip("/") + "/"
    quoted = BACKTICKED.findall(instruction)
    paths = {q.rstrip("/")[len(root) :] for q in quoted if q.startswith(root) and " " not in q}
    return Reading(
        workdir=workdir,
        paths=tuple(sorted(p for p in paths if p)),
        outputs=tuple(sorted(_outputs(instruction, root))),
        free_rows=tuple(sorted(_free_rows(instruction, root))),
        commands=tuple(sorted({q for q in quoted if _is_command(q, root)})),
        names=tuple(sorted({w for q in quoted for w in q.split(",") if NAME.fullmatch(w)})),
        strict=Strictness(
            exact_text=bool(EXACT_TEXT.search(instruction)),
            rows_free=any(
                ROWS_FREE.search(s) and not BACKTICKED.search(s)
                for s in SENTENCE.split(instruction)
            ),
        ),
        modes=bool(MODES.search(instruction)),
        authors="any committer" not in instruction.lower(),
    )


def _outputs(instruction: str, root: str) -> set[str]:
    """Paths whose sentence asks, before naming them, to write, create or save something."""
    found = set()
    for match in BACKTICKED.finditer(instruction):
        path = match.group(1).rstrip("/")
        if not path.startswith(root) or " " in path:
            continue
        before = instruction[max(0, match.start() - 120) : match.start()]
        sentence = re.split(r"\.\s|\n|:\s", before)[-1]
        if (CREATES.search(sentence) or INTO.search(sentence)) and not READS.search(sentence):
            found.add(path[len(root) :])
    return found


def _free_rows(instruction: str, root: str) -> set[str]:
    """Paths followed, in their clause (up to the next path or sentence end), by a statement
    that lines or rows may come in any order."""
    found = set()
    for match in BACKTICKED.finditer(instruction):
        path = match.group(1).rstrip("/")
        if path.startswith(root) and " " not in path:
            after = SENTENCE.split(instruction[match.end() :], maxsplit=1)[0]
            clause = re.split(r"`" + re.escape(root), after, maxsplit=1)[0]
            if ROWS_FREE.search(clause):
                found.add(path[len(root) :])
    return found


def _is_command(text: str, root: str) -> bool:
    """A runnable command line: an interpreter or a working-directory program with arguments,
    and no placeholder (`FILE`, `[N]`, `...`), pipe or output redirection."""
    try:
        words = shlex.split(text.replace(" < ", " "))
    except ValueError:
        return False
    if len(words) < 2 or PLACEHOLDER.search(text.replace(" < ", " ")):
        return False
    return words[0] in INTERPRETERS or words[0].startswith(root)


def digest(text: str) -> str:
    """A short hash of text that may hold file names (any bytes: `fsnames.raw`)."""
    return hashlib.sha256(raw(text)).hexdigest()[:16]


def _under(snap: Snapshot, rel: str) -> list[str]:
    """Entries below a folder, outside any `.git/`, sorted."""
    prefix = rel + "/"
    names = [*snap.files, *snap.links, *snap.dirs]
    inside = {n for n in names if n.startswith(prefix) and "/.git/" not in f"/{n}/"}
    return sorted(n for n in inside if not n.endswith("/.git"))


def strictness(reading: Reading, rel: str) -> Strictness:
    """How a path's text is compared: row order is free by its own clause or everywhere."""
    free = reading.strict.rows_free or any(
        rel == p or rel.startswith(p + "/") for p in reading.free_rows
    )
    return replace(reading.strict, rows_free=free)


def _entry(snap: Snapshot, rel: str, reading: Reading) -> str:
    mode = f" {snap.modes.get(rel, 0):o}" if reading.modes else ""
    if rel in snap.links:
        return f"link {snap.links[rel]}"
    if rel in snap.files:
        return f"file{mode} {digest(canonical(rel, snap.files[rel], strictness(reading, rel)))}"
    if rel in snap.dirs or any(n.startswith(rel + "/") for n in snap.files):
        return f"dir{mode}"  # old snapshots list no folders
    return "absent"


def empty_facts(rel: str, reading: Reading) -> set[tuple[str, str]]:
    """The facts that say a file is there but empty: no answer in it."""
    content = digest(canonical(rel, b"", strictness(reading, rel)))
    return {(f"nonempty:{rel}", "False"), (f"lines:{rel}", "0"), (f"content:{rel}", content)}


def path_facts(snap: Snapshot, rel: str, reading: Reading) -> dict[str, str]:
    """Facts about one named path."""
    entry = _entry(snap, rel, reading)
    kind = entry.split(" ")[0]
    facts = {f"kind:{rel}": kind, f"exists:{rel}": str(kind != "absent")}
    if kind == "link":
        facts[f"link:{rel}"] = snap.links[rel]
    elif kind == "file":
        data = snap.files[rel]
        if not (rel in reading.outputs and kind_of(rel, data) in ("python", "script")):
            # A program the agent writes may take any shape: its behaviour is what the
            # named commands and the files it produced check.
            facts[f"content:{rel}"] = entry.split(" ")[-1]
        facts[f"nonempty:{rel}"] = str(bool(data.strip()))
        parsed = parses(rel, data)
        if parsed is not None:
            facts[f"parses:{rel}"] = str(parsed)
        named = sorted(set(reading.names) & keys(rel, data))
        facts[f"keys:{rel}"] = ",".join(named)
        if kind_of(rel, data) in LINE_KINDS:
            facts |= text_facts(rel, data, reading)
        facts |= field_facts(rel, data)
    elif kind == "dir":
        entries = _under(snap, rel)
        facts[f"names:{rel}"] = digest("\n".join(entries))
        facts[f"tree:{rel}"] = digest("\n".join(f"{n} {_entry(snap, n, reading)}" for n in entries))
    if reading.modes and kind in ("file", "dir"):
        facts[f"mode:{rel}"] = f"{snap.modes.get(rel, 0):o}"
    return facts


def _rows(rel: str, data: bytes) -> list[str]:
    """The non-blank lines of a file, a CSV or TSV file's header row left out."""
    lines = [line.rstrip() for line in data.decode("utf-8", errors="replace").splitlines()]
    rows = [line for line in lines if line.strip()]
    return rows[1:] if kind_of(rel, data) in ("csv", "tsv") else rows


def _ordered(rows: list[str]) -> bool:
    """Non-decreasing in byte order, ignoring case, or by a leading number."""
    if rows == sorted(rows) or [r.casefold() for r in rows] == sorted(r.casefold() for r in rows):
        return True
    numbers = [NUMBER.match(r) for r in rows]
    values = [float(m.group(0)) for m in numbers if m]
    return len(values) == len(rows) and values == sorted(values)


def text_facts(rel: str, data: bytes, reading: Reading) -> dict[str, str]:
    """Counts and properties of a file's lines (rows, for CSV and TSV): how many there are,
    whether they repeat, whether they are sorted (when row order is not free), the header;
    its encoding, and where the instruction fixes exact text, the final newline."""
    rows = _rows(rel, data)
    facts = {f"lines:{rel}": str(len(rows)), f"unique:{rel}": str(len(set(rows)) == len(rows))}
    if not strictness(reading, rel).rows_free:
        facts[f"ascending:{rel}"] = str(_ordered(rows))
        facts[f"descending:{rel}"] = str(_ordered(rows[::-1]))
    if kind_of(rel, data) in ("csv", "tsv"):
        first = data.decode("utf-8", errors="replace").strip().split("\n")[0]
        facts[f"header:{rel}"] = digest(",".join(c.strip() for c in first.split(",")))
    if reading.strict.exact_text:
        facts[f"newline:{rel}"] = str(not data or data.endswith(b"\n"))  # no line lacks one
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        facts[f"utf8:{rel}"] = "False"
    else:
        facts[f"utf8:{rel}"] = "True"
    return facts


MAX_FIELDS = 64
"""Most leaf values of one structured document that become facts (a large one votes by its
whole content only)."""


def field_facts(rel: str, data: bytes) -> dict[str, str]:
    """Each leaf value of a JSON, YAML or TOML document by its path (`field:out.json:a.0.b`),
    so that votes can agree on the fields that agree when the whole document does not."""
    kind = kind_of(rel, data)
    if kind not in ("json", "yaml", "toml"):
        return {}
    try:
        value = parse(kind, data.decode("utf-8", errors="replace"))
    except ValueError:
        return {}
    leaves: dict[str, str] = {}
    stack: list[tuple[str, object]] = [("", value)]
    while stack and len(leaves) <= MAX_FIELDS:
        path, item = stack.pop()
        if isinstance(item, dict):
            stack += [(f"{path}.{k}" if path else str(k), v) for k, v in item.items()]
        elif isinstance(item, list):
            stack += [(f"{path}.{i}" if path else str(i), v) for i, v in enumerate(item)]
        else:
            leaves[f"field:{rel}:{path}"] = json.dumps(item, sort_keys=True, default=str)
    return leaves if len(leaves) <= MAX_FIELDS else {}


def git_facts(snap: Snapshot, reading: Reading) -> dict[str, str]:
    """Facts about every git repository in the snapshot."""
    facts = {}
    for repo, state in snap.git.items():
        facts[f"repo:{repo}"] = "yes"
        for aspect, value in state.items():
            if aspect != "authors" or reading.authors:
                facts[f"git:{repo}:{aspect}"] = value
    return facts


# Command facts by everything that determines them: a bench grades the same final
# workspaces in many runs (shared rollouts, and candidates that leave identical files).
_COMMAND_FACTS: dict[str, dict[str, str]] = {}


def _command_key(snap: Snapshot, reading: Reading, sandbox: Sandbox) -> str:
    """The commands, working directory, output strictness, sandbox kind and limits, and the
    snapshot's content (files, links, modes, folders: what `write_snapshot` lays out)."""
    content = hashlib.sha256()
    for rel in sorted(snap.files):
        content.update(raw(rel) + b"\0" + hashlib.sha256(snap.files[rel]).digest())
    layout = (sorted(snap.links.items()), sorted(snap.modes.items()), sorted(snap.dirs))
    kind = (type(sandbox).__name__, getattr(sandbox, "limits", None))
    parts = (reading.commands, reading.workdir, reading.strict, kind, layout)
    return hashlib.sha256(repr(parts).encode() + content.digest()).hexdigest()


def command_facts(snap: Snapshot, reading: Reading, sandbox: Sandbox) -> dict[str, str]:
    """Exit status and canonical standard output of each named command, run in the sandbox
    on a writable copy of the snapshot (once per distinct snapshot and commands)."""
    if not reading.commands:
        return {}
    key = _command_key(snap, reading, sandbox)
    if key not in _COMMAND_FACTS:
        _COMMAND_FACTS[key] = _run_commands(snap, reading, sandbox)
    return dict(_COMMAND_FACTS[key])


def _run_commands(snap: Snapshot, reading: Reading, sandbox: Sandbox) -> dict[str, str]:
    facts: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="hp-synth-") as name:
        for command in reading.commands:
            work = write_snapshot(Path(name) / digest(command), snap)
            mounts = [Mount(work, reading.workdir, writable=True)]
            cwd = sandbox.visible_path(mounts, reading.workdir)
            argv = ["bash", "-c", command.replace(reading.workdir, cwd)]
            result = sandbox.run(argv, mounts, {}, cwd, COMMAND_TIMEOUT_S)
            out = canonical("stdout", result.stdout.encode(), reading.strict)
            facts[f"exit:{command}"] = (
                "timeout" if result.exit_code is None else str(result.exit_code)
            )
            facts[f"stdout:{command}"] = digest(out)
    return facts


def snapshot_facts(
    files: Mapping[str, bytes],
    reading: Reading,
    sandbox: Sandbox | None,
    wanted: Iterable[str] | None = None,
) -> dict[str, str]:
    """Every fact of a snapshot (only commands' facts need the sandbox; without one they
    are left out). `wanted` limits the work to the aspects a frozen test compares."""
    snap = as_snapshot(files)
    want = None if wanted is None else set(wanted)
    facts: dict[str, str] = {}
    for rel in reading.paths:
        facts |= path_facts(snap, rel, reading)
    facts |= git_facts(snap, reading)
    needs_commands = want is None or any(a.startswith(("exit:", "stdout:")) for a in want)
    if sandbox is not None and needs_commands:
        facts |= command_facts(snap, reading, sandbox)
    return facts if want is None else {a: v for a, v in facts.items() if a in want}
