"""Compare two run ledgers table by table, leaving out what differs between any two runs of
the same config (clock times, also inside quoted tool output, latencies, commit hashes,
artifact paths).

    .venv/bin/python scripts/ledger_diff.py RUN_A/ledger.sqlite RUN_B/ledger.sqlite

Prints one line per table (rows compared, equal or the first differing row) and exits 1 when
any table differs: used to show that a restructure changed no behaviour.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path

# Columns that vary between two identical runs: wall-clock, host paths, git object names
# (commit times enter commit hashes; trees are content and stay).
VOLATILE = {"created", "finished", "latency_s", "artifacts", "commit_sha"}
# File times in tool output the analyzer quotes (`ls -l`: "Dec  2 08:37"): the clock, not the run.
CLOCK = re.compile(r"\b[A-Z][a-z]{2} +\d{1,2} +\d\d:\d\d\b")


def steady(value: object) -> object:
    return CLOCK.sub("<time>", value) if isinstance(value, str) else value


def rows(path: Path, table: str) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        cols = [r[1] for r in db.execute(f"pragma table_info({table})")]
        kept = [c for c in cols if c not in VOLATILE]
        found = db.execute(f"select {', '.join(kept)} from {table}").fetchall()
    return sorted((tuple(steady(v) for v in row) for row in found), key=repr)


def tables(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return [n for (n,) in db.execute("select name from sqlite_master where type='table'")]


def main(a: Path, b: Path) -> int:
    differ = 0
    names = sorted(set(tables(a)) | set(tables(b)))
    for table in names:
        if table == "meta":  # run folder paths and timestamps only
            continue
        left, right = rows(a, table), rows(b, table)
        if left == right:
            print(f"{table}: {len(left)} rows, equal")
            continue
        differ += 1
        first = next((x, y) for x, y in zip([*left, None], [*right, None], strict=False) if x != y)
        print(f"{table}: {len(left)} vs {len(right)} rows, DIFFER; first: {first[0]} | {first[1]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
