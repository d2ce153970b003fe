#!/bin/bash
# Verifier: exact comparison of the per-region totals of paid orders.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
expected = ("region,orders,revenue\n"
            "North,83,5619.95\n"
            "South,49,2906.16\n"
            "East,59,2875.66\n"
            "Central,20,2006.25\n"
            "West,42,1801.51\n")
try:
    got = open("/workspace/region_totals.csv").read()
except OSError as e:
    print("FAIL: cannot read /workspace/region_totals.csv:", e)
    sys.exit(1)
if got != expected:
    print("FAIL: unexpected content")
    print("expected:", repr(expected))
    print("got:     ", repr(got))
    sys.exit(1)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
