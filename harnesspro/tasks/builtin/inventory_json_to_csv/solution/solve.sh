#!/bin/bash
# Reference solution: flatten the products with python3's json module, then write them with csv's minimal quoting.

python3 - <<'PY'
import json
rows = []
for it in json.load(open("/workspace/inventory.json")):
    stock = it["stock"]["warehouse"] + it["stock"].get("store", 0)
    rows.append([it["sku"], it["name"], "%.2f" % it["price"], str(stock), ";".join(it.get("tags") or [])])
rows.sort(key=lambda r: r[0].encode())
json.dump(rows, open("/workspace/rows.json", "w"))
PY

python3 - <<'PY'
import csv, json
with open("/workspace/inventory.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["sku", "name", "price", "total_stock", "tags"])
    w.writerows(json.load(open("/workspace/rows.json")))
PY
