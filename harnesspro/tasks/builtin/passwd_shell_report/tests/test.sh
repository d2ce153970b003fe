#!/bin/bash
# Verifier: compares /workspace/shells.txt with the expected per-shell counts of regular accounts.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
expected = ("109 /bin/bash\n47 /bin/sh\n45 /usr/bin/zsh\n40 /usr/sbin/nologin\n"
            "26 /usr/bin/fish\n19 /bin/false\n6 /bin/dash\n")
try:
    got = open("/workspace/shells.txt").read()
except OSError as e:
    print("FAIL: cannot read /workspace/shells.txt:", e)
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
