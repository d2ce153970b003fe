"""The kinds of slip the scripted policy makes, and the commands that carry them out.

- `typo`: the step's first command is garbled and fails ("command not found"); the error is
  in the tool result, so the policy may notice it at once (behaviour model 4).
- the quiet kinds, each with plausible output and no error marker, noticed only by a final
  verification or a refused submission:
  - `wrong_value`: a value in an output is wrong (on the first line with digits, every
    digit is one higher; without digits its first two lines trade places);
  - `off_by_one`: an output ends one row short (one row long when it has a single line);
  - `missing_rows`: every second row of an output from the second on is missing (a
    one-line output loses its last field);
  - `wrong_name`: an output is written under another name (`out.csv` -> `out_final.csv`);
  - `skip`: the step is silently skipped; a harmless listing runs instead.
The quiet kinds that change an output act after the last reference step (earlier steps'
outputs are usually rewritten by later ones), on one output the instruction names inside the
working folder (never a system file it mentions, such as /etc/passwd); a task whose
instruction names no such output slips by typo instead. Which kind a slip is follows the
profile's `slip_kinds` weights.
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Mapping
from pathlib import PurePosixPath

KINDS = ("typo", "wrong_value", "off_by_one", "missing_rows", "wrong_name", "skip")
QUIET = KINDS[1:]
ON_OUTPUT = ("wrong_value", "off_by_one", "missing_rows", "wrong_name")


def typo(step: str) -> str:
    """The step's first line with a garbled first word (it fails: command not found)."""
    first = step.splitlines()[0]
    word, _, rest = first.partition(" ")
    return f"{word}{word[-1:]}x {rest}".rstrip()


def choose(mix: Mapping[str, float], u: float, has_outputs: bool) -> str:
    """The kind for a uniform draw `u` under the weights `mix` (typo when the kind needs an
    output and the task names none)."""
    total = sum(mix.values())
    if total <= 0:
        return "typo"
    edge = 0.0
    for kind in KINDS:
        edge += mix.get(kind, 0.0) / total
        if u < edge:
            return kind if has_outputs or kind not in ON_OUTPUT else "typo"
    return "typo"


def corruption(kind: str, path: str) -> str:
    """A command that silently spoils `path` the way `kind` says; prints nothing, exits 0."""
    p = shlex.quote(path)
    if kind == "wrong_value":
        return (
            f"if grep -q '[0-9]' {p} 2>/dev/null; then "
            f"sed -i '0,/[0-9]/{{/[0-9]/y/0123456789/1234567890/}}' {p}; "
            f"elif [ -f {p} ]; then sed -i '1{{h;d}};2G' {p}; fi; true"
        )
    if kind == "off_by_one":
        return (
            f"if [ -f {p} ]; then if [ $(wc -l < {p}) -gt 1 ]; then sed -i '$d' {p}; "
            f"else sed -i '$p' {p}; fi; fi; true"
        )
    if kind == "missing_rows":
        return (
            f"if [ -f {p} ]; then if [ $(wc -l < {p}) -gt 1 ]; then sed -i '2~2d' {p}; "
            f"else sed -i 's/[^ ,;]*$//' {p}; fi; fi; true"
        )
    if kind == "wrong_name":
        pure = PurePosixPath(path)
        other = shlex.quote(str(pure.with_name(f"{pure.stem}_final{pure.suffix}")))
        return f"if [ -e {p} ]; then mv {p} {other}; fi; true"
    raise ValueError(f"no output corruption for slip kind {kind!r}")


def skipped(workdir: str) -> str:
    """What runs instead of a silently skipped step."""
    return f"ls {shlex.quote(workdir)}"


def sample_mix(seed: int) -> dict[str, float]:
    """A profile's slip mix: typo 0.2-0.6 of slips, the rest spread over the quiet kinds.
    Drawn from its own stream, so a profile's other fields are as they were before."""
    rng = random.Random(f"slip-mix:{seed}")
    typo_share = round(rng.uniform(0.2, 0.6), 3)
    raw = [rng.random() + 0.05 for _ in QUIET]
    total = sum(raw)
    return {
        "typo": typo_share,
        **{k: round((1 - typo_share) * w / total, 3) for k, w in zip(QUIET, raw, strict=True)},
    }
