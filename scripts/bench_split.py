"""Write the benchmark's split manifest: a test split stratified by category and step count
(harnesspro/bench/split.py), a DPP coreset of the rest, the remainder as validation.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_split.py [--test-tasks 14] [--seed 0] \\
        [--coreset-size 4] [--out coresets/bench.json]

configs/bench.yaml reads coresets/bench.json; rewrite it with this script when the built-in
suite changes (a run refuses a manifest whose task hashes no longer match).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from harnesspro.bench.split import bench_splits, step_bucket
from harnesspro.tasks.loader import load_suite
from harnesspro.tasks.manifest import build_manifest, splits_dict, write_manifest


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--test-tasks", type=int, default=14)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--coreset-size", type=int, default=4)
    parser.add_argument("--out", type=Path, default=Path("coresets/bench.json"))
    args = parser.parse_args(argv)
    tasks = load_suite("builtin")
    if not 0 < args.test_tasks < len(tasks):
        print(f"--test-tasks {args.test_tasks}: give 1 to {len(tasks) - 1}.")
        return 2
    splits = bench_splits(tasks, args.test_tasks, args.seed, args.coreset_size)
    settings = {
        "test_tasks": args.test_tasks,
        "seed": args.seed,
        "coreset_size": args.coreset_size,
        "stratified": "category x step count",
    }
    command = (
        f"scripts/bench_split.py --test-tasks {args.test_tasks} --seed {args.seed} "
        f"--coreset-size {args.coreset_size} --out {args.out}"
    )
    manifest = build_manifest("builtin", tasks, splits_dict(splits, True), settings, command)
    write_manifest(manifest, args.out)
    by_id = {t.id: t for t in tasks}
    strata = Counter((by_id[t].category, step_bucket(by_id[t])) for t in splits.test)
    print(f"wrote {args.out}: test {len(splits.test)}, coreset {len(splits.coreset)}, "
          f"validation {len(splits.validation)}")  # fmt: skip
    for (category, bucket), n in sorted(strata.items()):
        print(f"  {category:16} {bucket:10} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
