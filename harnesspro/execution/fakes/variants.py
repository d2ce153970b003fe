"""Output variety: ways a model may write a task's outputs that the official tests accept.

Real models differ in formatting (JSON indentation and key order, a final newline) and in
ordering where the task leaves it free. Each kind below is a small rewrite of one output
file; `variants.json` lists, per built-in task, the (file, kind) pairs its official tests
accept - measured by running the reference solution, the rewrite and the official verifier
(scripts/check_output_variants.py), never assumed. A profile's `variant` bits choose which
kinds its answers use, the same style across tasks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache
from importlib import resources


def _suffix(*suffixes: str) -> Callable[[str], bool]:
    return lambda path: path.endswith(suffixes)


def _script(path: str) -> bool:
    """A program the task has the agent write: `.py`, `.sh` or no suffix at all."""
    name = path.rsplit("/", 1)[-1]
    return name.endswith((".py", ".sh")) or "." not in name


# kind -> (the output files it applies to, a python3 program rewriting sys.argv[1] in place)
KINDS: dict[str, tuple[Callable[[str], bool], str]] = {
    "json-compact": (
        _suffix(".json"),
        "import json,sys;p=sys.argv[1];d=json.load(open(p));"
        "open(p,'w').write(json.dumps(d,separators=(',',':')))",
    ),
    "json-indent-sorted": (
        _suffix(".json"),
        "import json,sys;p=sys.argv[1];d=json.load(open(p));"
        "open(p,'w').write(json.dumps(d,indent=4,sort_keys=True)+chr(10))",
    ),
    "no-final-newline": (
        _suffix(".txt", ".csv", ".tsv", ".md"),
        "import sys;p=sys.argv[1];t=open(p).read();open(p,'w').write(t.rstrip(chr(10)))",
    ),
    "rows-reversed": (
        _suffix(".csv", ".tsv"),
        "import sys;p=sys.argv[1];h,*r=open(p).read().splitlines();"
        "open(p,'w').write(chr(10).join([h,*reversed(r)])+chr(10))",
    ),
    "lines-reversed": (
        _suffix(".txt"),
        "import sys;p=sys.argv[1];r=open(p).read().splitlines();"
        "open(p,'w').write(chr(10).join(reversed(r))+chr(10))",
    ),
    "comment-appended": (  # a closing remark in a script it wrote
        _script,
        "import sys;p=sys.argv[1];open(p,'a').write(chr(10)+'# Reviewed: handles the cases"
        " in the task.'+chr(10))",
    ),
}


def rewrite_command(kind: str, path: str) -> str:
    """The shell command applying `kind` to the file at `path` (a no-op if it is missing)."""
    program = KINDS[kind][1]
    return f'[ -f {path} ] && python3 -c "{program}" {path} || true'


@cache
def accepted() -> dict[str, list[tuple[str, str]]]:
    """Task id -> the (output file, kind) pairs its official tests accept."""
    text = (resources.files("harnesspro.execution.fakes") / "variants.json").read_text()
    return {task: [(f, k) for f, k in pairs] for task, pairs in json.loads(text).items()}


def chosen(pairs: Sequence[tuple[str, str]], variant: int) -> list[tuple[str, str]]:
    """The accepted (file, kind) rewrites a profile with these `variant` bits applies: kind
    number i when bit i is set, at most one kind per file."""
    picked: dict[str, str] = {}
    for path, kind in pairs:
        if variant >> list(KINDS).index(kind) & 1:
            picked.setdefault(path, kind)
    return list(picked.items())
