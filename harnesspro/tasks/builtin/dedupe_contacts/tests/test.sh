#!/bin/bash
# Verifier: recomputes the merged contacts from the (unchanged) input and compares both outputs byte for byte.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import csv, hashlib, io, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

try:
    raw = open("/workspace/contacts.csv", "rb").read()
except OSError as e:
    fail("cannot read input: %s" % e)
if hashlib.sha256(raw).hexdigest() != "5247d809e6abf813a980f0fa3d5df406df94db0536d31011fa2b11168f04cd4c":
    fail("/workspace/contacts.csv was modified")

groups = {}
for row in csv.DictReader(io.StringIO(raw.decode(), newline="")):
    groups.setdefault(row["email"].strip().lower(), []).append(row)
out = io.StringIO()
w = csv.writer(out, lineterminator="\n")
w.writerow(["id", "name", "email", "phone", "updated_at"])
log = []
for email in sorted(groups, key=lambda s: s.encode()):
    best = None
    for row in groups[email]:
        if best is None or row["updated_at"] > best["updated_at"] or (
                row["updated_at"] == best["updated_at"] and int(row["id"]) < int(best["id"])):
            best = row
    rest = [r for r in groups[email] if r is not best]
    rest.sort(key=lambda r: int(r["id"]))
    rest.sort(key=lambda r: r["updated_at"], reverse=True)
    merged = {}
    for field in ("name", "phone"):
        merged[field] = best[field]
        for r in rest:
            if merged[field]:
                break
            merged[field] = r[field]
    w.writerow([best["id"], merged["name"], email, merged["phone"], best["updated_at"]])
    if rest:
        log.append((int(best["id"]), sorted(int(r["id"]) for r in rest)))
log.sort()
expected = {
    "/workspace/contacts_clean.csv": out.getvalue(),
    "/workspace/merge_log.txt": "".join("%d %s\n" % (a, ",".join(map(str, b))) for a, b in log),
}
for path, exp in expected.items():
    try:
        got = open(path, newline="").read()
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))
    if got != exp:
        g, e = got.split("\n"), exp.split("\n")
        i = next(i for i in range(max(len(g), len(e))) if i >= len(g) or i >= len(e) or g[i] != e[i])
        fail("%s line %d: expected %r, got %r" % (path, i + 1, e[i] if i < len(e) else None, g[i] if i < len(g) else None))
print("PASS (%d contacts, %d merged groups)" % (len(groups), len(log)))
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
