#!/bin/bash
# Reference solution: group by normalized email, order each group by priority, merge, write both files.

cat > /workspace/dedupe.py <<'PY'
import csv
groups = {}
for row in csv.DictReader(open("/workspace/contacts.csv", newline="")):
    groups.setdefault(row["email"].strip().lower(), []).append(row)
log = []
with open("/workspace/contacts_clean.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["id", "name", "email", "phone", "updated_at"])
    for email in sorted(groups, key=lambda s: s.encode()):
        rows = sorted(groups[email], key=lambda x: (x["updated_at"], -int(x["id"])), reverse=True)
        win = rows[0]
        name = next((x["name"] for x in rows if x["name"] != ""), "")
        phone = next((x["phone"] for x in rows if x["phone"] != ""), "")
        w.writerow([win["id"], name, email, phone, win["updated_at"]])
        if len(rows) > 1:
            log.append((int(win["id"]), sorted(int(x["id"]) for x in rows[1:])))
with open("/workspace/merge_log.txt", "w") as f:
    for winner, others in sorted(log):
        f.write("%d %s\n" % (winner, ",".join(map(str, others))))
PY

python3 /workspace/dedupe.py
