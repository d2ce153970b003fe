#!/bin/bash
# Reference solution: one Python pass per output file.

python3 - <<'PY'
import csv, json
users = {u["id"]: u for u in json.load(open("/workspace/users.json"))}
agg = {}
with open("/workspace/orders.csv", newline="") as f:
    for row in csv.DictReader(f):
        uid = int(row["user_id"])
        if not row["created_at"].startswith("2024-") or uid not in users:
            continue
        count, total = agg.get(uid, (0, 0))
        agg[uid] = (count + 1, total + int(row["amount_cents"]))
report = [{"user_id": uid, "name": users[uid]["name"], "country": users[uid]["country"],
           "order_count": c, "total_cents": t} for uid, (c, t) in agg.items()]
report.sort(key=lambda r: (-r["total_cents"], r["user_id"]))
with open("/workspace/customer_report.json", "w") as f:
    json.dump(report, f, indent=2)
    f.write("\n")
PY

python3 - <<'PY'
import csv, json
known = {u["id"] for u in json.load(open("/workspace/users.json"))}
with open("/workspace/orders.csv", newline="") as f:
    orphans = sorted(int(r["order_id"]) for r in csv.DictReader(f)
                     if r["created_at"].startswith("2024-") and int(r["user_id"]) not in known)
with open("/workspace/orphan_orders.txt", "w") as f:
    f.write("".join("%d\n" % o for o in orphans))
PY
