"""A docs/benchmarks.md section from a finished bench's own files: the date, the commit, the
command (OUT/command.txt) and OUT/summary.md verbatim (paired table, power line, per-strategy
table, resolution, wall time).

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_record.py OUT "Section title" [--commit SHA] \
        [--keep docs/bench-data/NAME]

Paste its output into docs/benchmarks.md; the numbers are never typed by hand. `--keep DIR`
also copies the bench's own small files (bench.csv, summary.md, command.txt, timing.json) into
DIR, so that `harnesspro bench pool` can pool its units with later benches' from the
repository, after the machine that ran it (and OUT) is gone.
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import subprocess
import sys
from pathlib import Path

KEPT = ("bench.csv", "summary.md", "command.txt", "timing.json", "commit.txt")
"""What `--keep` copies: the units' rows (what `harnesspro bench pool` reads) and how they
were made."""


def head_commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def section(out: Path, title: str, commit: str, today: str) -> str:
    command = (out / "command.txt").read_text().strip()
    command = command.replace("harnesspro ", ".venv/bin/python -m harnesspro ", 1)
    summary = (out / "summary.md").read_text().strip()
    return (
        f"### {title}\n\n*Recorded {today}, commit {commit}.*\n\n"
        f"```sh\nPYTHONPATH=$PWD nice -n 10 {command}\n```\n\n{summary}\n"
    )


def keep(out: Path, dest: Path) -> None:
    """Copy the bench's KEPT files that exist into `dest` (made if missing); refuses a folder
    that already holds a bench.csv, so a kept bench is never overwritten by another."""
    if (dest / "bench.csv").exists():
        raise FileExistsError(
            f"{dest} already holds a bench.csv: keep each bench in its own folder"
        )
    dest.mkdir(parents=True, exist_ok=True)
    for name in KEPT:
        if (out / name).is_file():
            shutil.copy2(out / name, dest / name)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("title")
    parser.add_argument("--commit", default="")
    parser.add_argument("--keep", type=Path, help="copy the bench's small files here")
    args = parser.parse_args(argv)
    need = ("command.txt", "summary.md", *(("bench.csv",) if args.keep else ()))
    missing = [n for n in need if not (args.out / n).is_file()]
    if missing:
        print(f"{args.out}: no {missing[0]}; pass a folder `harnesspro bench` wrote.")
        return 2
    if args.keep:
        try:
            keep(args.out, args.keep)
        except OSError as exc:  # FileExistsError included
            print(f"bench_record.py: --keep: {exc}", file=sys.stderr)
            return 2
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    print(section(args.out, args.title, args.commit or head_commit(), today), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
