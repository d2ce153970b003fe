"""A docs/benchmarks.md section from a finished bench's own files: the date, the commit, the
command (OUT/command.txt) and OUT/summary.md verbatim (paired table, power line, per-strategy
table, resolution, wall time).

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_record.py OUT "Section title" [--commit SHA]

Paste its output into docs/benchmarks.md; the numbers are never typed by hand.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
from pathlib import Path


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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("title")
    parser.add_argument("--commit", default="")
    args = parser.parse_args(argv)
    missing = [n for n in ("command.txt", "summary.md") if not (args.out / n).is_file()]
    if missing:
        print(f"{args.out}: no {missing[0]}; pass a folder `harnesspro bench` wrote.")
        return 2
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    print(section(args.out, args.title, args.commit or head_commit(), today), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
