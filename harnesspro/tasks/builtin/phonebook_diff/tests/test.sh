#!/bin/bash
# Verifier: recomputes the directory diff from the (unchanged) inputs and compares both outputs.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import hashlib, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

INPUTS = {"/workspace/old.txt": "829815fc879bd0e3be449d7189eca89ae556967bedb5ffa3ffefc5e97f955c09", "/workspace/new.txt": "7b4bd84f489a9e6ff706c1ac54add75399618417532735c121a00190b7a3a0cb"}
for path, digest in INPUTS.items():
    try:
        if hashlib.sha256(open(path, "rb").read()).hexdigest() != digest:
            fail("%s was modified" % path)
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))

def load(path):
    d = {}
    for line in open(path).read().splitlines():
        if line and not line.startswith("#"):
            k, v = line.split(":", 1)
            d[k] = v
    return d

old, new = load("/workspace/old.txt"), load("/workspace/new.txt")
lines, counts = [], {"added": 0, "removed": 0, "changed": 0, "unchanged": 0}
for k in sorted(set(old) | set(new), key=lambda s: s.encode()):
    if k not in old:
        lines.append("+ %s %s" % (k, new[k])); counts["added"] += 1
    elif k not in new:
        lines.append("- %s %s" % (k, old[k])); counts["removed"] += 1
    elif old[k] != new[k]:
        lines.append("~ %s %s %s" % (k, old[k], new[k])); counts["changed"] += 1
    else:
        counts["unchanged"] += 1
expected = {
    "/workspace/changes.txt": "".join(l + "\n" for l in lines),
    "/workspace/summary.txt": "".join("%s %d\n" % kv for kv in counts.items()),
}
for path, exp in expected.items():
    try:
        got = open(path).read()
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))
    if got != exp:
        g, e = got.splitlines(), exp.splitlines()
        diff = next((i for i in range(max(len(g), len(e))) if i >= len(g) or i >= len(e) or g[i] != e[i]), None)
        fail("%s differs (expected %d lines, got %d; first difference at line %s: expected %r, got %r)"
             % (path, len(e), len(g), None if diff is None else diff + 1,
                e[diff] if diff is not None and diff < len(e) else None,
                g[diff] if diff is not None and diff < len(g) else None))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
