#!/bin/bash
# Verifier: compares /workspace/top_ips.txt with the expected top-5 failing clients.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
expected = "17 10.0.1.167\n13 10.0.6.109\n11 10.0.4.55\n8 10.0.3.121\n8 10.0.7.19\n"
try:
    got = open("/workspace/top_ips.txt").read()
except OSError as e:
    print("FAIL: cannot read /workspace/top_ips.txt:", e)
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
