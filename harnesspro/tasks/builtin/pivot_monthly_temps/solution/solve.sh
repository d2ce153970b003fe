#!/bin/bash
# Reference solution: group the readings per station and month, then average with exact decimal rounding.

python3 - <<'PY'
import csv, json
groups = {}
for row in csv.DictReader(open("/workspace/readings.csv")):
    if row["temp_c"] != "":
        groups.setdefault(row["station"], {}).setdefault(row["date"][:7], []).append(row["temp_c"])
json.dump(groups, open("/workspace/groups.json", "w"), sort_keys=True)
PY

python3 - <<'PY'
import json
from decimal import Decimal, ROUND_HALF_UP
groups = json.load(open("/workspace/groups.json"))
months = sorted({m for per in groups.values() for m in per})
lines = [",".join(["station"] + months)]
for station in sorted(groups, key=lambda s: s.encode()):
    cells = [station]
    for m in months:
        vals = [Decimal(v) for v in groups[station].get(m, [])]
        mean = (sum(vals) / len(vals)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP) if vals else None
        cells.append("" if mean is None else ("0.0" if mean == 0 else str(mean)))
    lines.append(",".join(cells))
open("/workspace/monthly.csv", "w").write("\n".join(lines) + "\n")
PY
