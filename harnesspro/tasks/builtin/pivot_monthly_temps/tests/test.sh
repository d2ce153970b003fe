#!/bin/bash
# Verifier: compares /workspace/monthly.csv with the expected pivot table.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
expected = (
    "station,2023-01,2023-02,2023-03,2023-04,2023-05,2023-06\n"
    "Bergen,2.6,4.7,7.3,10.0,13.7,14.9\n"
    "Kautokeino,-11.5,-10.5,-6.3,,-1.8,2.0\n"
    "Oslo-Blindern,0.3,0.9,3.6,6.7,9.3,10.8\n"
    "Stavanger,3.2,5.3,8.5,11.3,12.4,16.8\n"
    "Tromso,-5.6,-2.4,0.3,3.1,5.4,8.4\n"
)
try:
    got = open("/workspace/monthly.csv").read()
except OSError as e:
    print("FAIL: cannot read /workspace/monthly.csv:", e)
    sys.exit(1)
if got != expected:
    g, e = got.split("\n"), expected.split("\n")
    for i in range(max(len(g), len(e))):
        if i >= len(g) or i >= len(e) or g[i] != e[i]:
            print("FAIL: line %d: expected %r, got %r" % (i + 1, e[i] if i < len(e) else None, g[i] if i < len(g) else None))
            break
    sys.exit(1)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
