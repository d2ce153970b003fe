#!/bin/bash
# Verifier: compares /workspace/change.txt with the expected minimum coin counts and numbers of ways.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
expected = (
    "17 2 1\n"
    "81 6 26\n"
    "12 3 1\n"
    "10 -1 0\n"
    "1100 29 196226\n"
    "1429 37 539318\n"
    "1 -1 0\n"
    "776 23 51787\n"
    "53 2 10\n"
    "14 2 1\n"
    "1999 52 1995521\n"
    "538 16 13129\n"
    "5 -1 0\n"
    "525 15 11997\n"
    "1350 36 432598\n"
    "968 26 120160\n"
    "80 2 26\n"
    "1000 25 136097\n"
    "33 3 4\n"
    "100 4 48\n"
    "99 6 45\n"
    "6 -1 0\n"
    "3 -1 0\n"
    "749 20 45294\n"
    "19 4 1\n"
    "336 12 2380\n"
    "8 2 1\n"
    "11 2 1\n"
    "26 2 2\n"
    "1344 36 425206\n"
    "2000 50 1999449\n"
    "0 0 1\n"
    "246 9 803\n"
    "9 -1 0\n"
    "121 7 82\n"
    "1290 33 362794\n"
    "41 5 5\n"
    "74 5 20\n"
)
try:
    got = open("/workspace/change.txt").read()
except OSError as e:
    print("FAIL: cannot read /workspace/change.txt:", e)
    sys.exit(1)
if got != expected:
    g, e = got.split("\n"), expected.split("\n")
    i = next(i for i in range(max(len(g), len(e))) if i >= len(g) or i >= len(e) or g[i] != e[i])
    print("FAIL: line %d: expected %r, got %r" % (i + 1, e[i] if i < len(e) else None, g[i] if i < len(g) else None))
    sys.exit(1)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
