#!/bin/bash
# Reference solution: validate every line in python3 (type checks exclude booleans and floats).

cat > /workspace/validate.py <<'PY'
import json, re
valid, rejects, seen = ["username,email,age,country"], [], set()
for n, line in enumerate(open("/workspace/signups.jsonl").read().splitlines(), 1):
    try:
        rec = json.loads(line)
    except ValueError:
        rec = None
    if not isinstance(rec, dict):
        rejects.append("%d malformed" % n)
        continue
    u, e, a, c = (rec.get(k) for k in ("username", "email", "age", "country"))
    bad = []
    if not (isinstance(u, str) and re.fullmatch(r"[a-z][a-z0-9_]{2,15}", u)):
        bad.append("username")
    if not (isinstance(e, str) and re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]{2,}", e)):
        bad.append("email")
    if not (type(a) is int and 13 <= a <= 120):
        bad.append("age")
    if not (isinstance(c, str) and re.fullmatch(r"[A-Z]{2}", c)):
        bad.append("country")
    if not bad and u in seen:
        bad.append("duplicate")
    if bad:
        rejects.append("%d %s" % (n, ",".join(bad)))
        continue
    seen.add(u)
    valid.append("%s,%s,%d,%s" % (u, e, a, c))
open("/workspace/valid.csv", "w").write("\n".join(valid) + "\n")
open("/workspace/rejects.txt", "w").write("".join(r + "\n" for r in rejects))
PY

python3 /workspace/validate.py
