#!/bin/bash
# Verifier: exact comparison with the precomputed cost (Dijkstra), move count (BFS) and reachable-cell count.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
expected = "409\n311\n8775\n"
try:
    got = open("/workspace/route.txt").read()
except OSError as e:
    print("FAIL: cannot read /workspace/route.txt:", e)
    sys.exit(1)
if got != expected:
    labels = ["minimum cost", "minimum moves", "reachable cells"]
    exp_l, got_l = expected.split("\n"), got.split("\n")
    for i, label in enumerate(labels):
        g = got_l[i] if i < len(got_l) else "<missing>"
        if g != exp_l[i]:
            print("FAIL: line %d (%s) is wrong: got %r" % (i + 1, label, g))
    print("FAIL: expected exactly %r, got %r" % (expected, got[:80]))
    sys.exit(1)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
