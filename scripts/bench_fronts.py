"""Several `harnesspro bench` outputs on the same profiles, scored on one reference front.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_fronts.py [--default VARIANT] \\
        LABEL=OUT [LABEL=OUT ...]

Each OUT is a finished bench folder (its bench.csv); its variants are renamed
`<variant>@<LABEL>` (an empty LABEL keeps the names). Every profile's yardstick
(harnesspro/bench/yardstick.py) is then built from all these variants' test-split points
(plus any exhaustive points in their bench.json), its reference cost twice the seed's, and
the summary table is printed as `harnesspro bench` prints it, with paired wins of
`--default` (default `harnesspro@<first LABEL>`), then its mean paired difference from each
other variant over the profiles with its interval. Use it to compare configurations
benched apart (e.g. one bench per value of a config key).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from harnesspro.bench.arithmetic import Point
from harnesspro.bench.paired import paired_frame, paired_markdown
from harnesspro.bench.report import markdown, run_rows, summary
from harnesspro.bench.runner import MODES, Outcome


def outcomes(label: str, out: Path) -> list[Outcome]:
    """The runs of one bench folder as outcomes, variants renamed with `label`."""
    rows = pd.read_csv(out / "bench.csv")
    found = []
    for r in rows.to_dict("records"):
        points = {m: (float(r[f"{m}_pass"]), float(r[f"{m}_cost"])) for m in MODES}
        name = f"{r['variant']}@{label}" if label else str(r["variant"])
        found.append(
            Outcome(name, int(r["profile"]), bool(r["misleading"]), points, int(r["rollouts"]), "")
        )
    return found


def exhaustive(out: Path) -> dict[int, list[Point]]:
    """bench.json's exhaustive points per profile (empty without --exhaustive)."""
    path = out / "bench.json"
    data = json.loads(path.read_text()).get("exhaustive", {}) if path.exists() else {}
    return {
        int(p): [(v["pass_rate"], v["cost_per_task"]) for v in points.values()]
        for p, points in data.items()
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benches", nargs="+", metavar="LABEL=OUT")
    parser.add_argument("--default", help="the variant whose paired wins are counted")
    args = parser.parse_args(argv)
    pairs = [b.partition("=")[::2] for b in args.benches]
    if any(not out for _, out in pairs):
        print("each bench is LABEL=OUT (LABEL may be empty: =OUT)")
        return 2
    missing = [out for _, out in pairs if not (Path(out) / "bench.csv").is_file()]
    if missing:
        print(f"{missing[0]}: no bench.csv; pass a folder a finished `harnesspro bench` wrote")
        return 2
    found: list[Outcome] = []
    extra: dict[int, list[Point]] = {}
    for label, out in pairs:
        found += outcomes(label, Path(out))
        for profile, points in exhaustive(Path(out)).items():
            extra.setdefault(profile, []).extend(points)
    first = pairs[0][0]
    default = args.default or (f"harnesspro@{first}" if first else "harnesspro")
    rows = run_rows(found, extra)
    print(markdown(summary(rows, default_variant=default)))
    print()
    print(paired_markdown(paired_frame(rows, default), default))
    wide = rows.pivot(index="profile", columns="variant", values="normalised_hv")
    print("\nper profile (normalised HV):")
    print(wide.round(3).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
