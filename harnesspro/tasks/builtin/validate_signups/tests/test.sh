#!/bin/bash
# Verifier: re-validates the (unchanged) input independently and compares valid.csv and rejects.txt.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import hashlib, json, re, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

try:
    raw = open("/workspace/signups.jsonl", "rb").read()
except OSError as e:
    fail("cannot read input: %s" % e)
if hashlib.sha256(raw).hexdigest() != "ee5bf26bcdf373b8ff8c510ecb871e323e1d220496cbe82ef71347961ed747fe":
    fail("/workspace/signups.jsonl was modified")

CHECKS = [
    ("username", lambda v: isinstance(v, str) and re.fullmatch(r"[a-z][a-z0-9_]{2,15}", v) is not None),
    ("email", lambda v: isinstance(v, str) and re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]{2,}", v) is not None),
    ("age", lambda v: isinstance(v, int) and not isinstance(v, bool) and 13 <= v <= 120),
    ("country", lambda v: isinstance(v, str) and len(v) == 2 and all("A" <= ch <= "Z" for ch in v)),
]
valid, rejects, taken = ["username,email,age,country"], [], set()
for n, line in enumerate(raw.decode().split("\n")[:-1], 1):
    try:
        rec = json.loads(line)
        assert isinstance(rec, dict)
    except (ValueError, AssertionError):
        rejects.append("%d malformed" % n)
        continue
    failed = [name for name, ok in CHECKS if name not in rec or not ok(rec[name])]
    if not failed and rec["username"] in taken:
        failed = ["duplicate"]
    if failed:
        rejects.append("%d %s" % (n, ",".join(failed)))
    else:
        taken.add(rec["username"])
        valid.append(",".join(str(rec[k]) for k, _ in CHECKS))

for path, lines in (("/workspace/valid.csv", valid), ("/workspace/rejects.txt", rejects)):
    exp = "".join(l + "\n" for l in lines)
    try:
        got = open(path).read()
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))
    if got != exp:
        g, e = got.split("\n"), exp.split("\n")
        i = next(i for i in range(max(len(g), len(e))) if i >= len(g) or i >= len(e) or g[i] != e[i])
        fail("%s line %d: expected %r, got %r" % (path, i + 1, e[i] if i < len(e) else None, g[i] if i < len(g) else None))
print("PASS (%d valid, %d rejected)" % (len(valid) - 1, len(rejects)))
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
