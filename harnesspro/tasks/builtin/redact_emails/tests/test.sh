#!/bin/bash
# Verifier: checks the redacted copy (by hash) and the per-domain counts.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import hashlib, re, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

try:
    red = open("/workspace/redacted.txt", "rb").read()
    dom = open("/workspace/domains.txt").read()
except OSError as e:
    fail("missing output: %s" % e)

leftover = [m for m in re.findall(rb"[A-Za-z0-9._%+-]+@", red) if not m.endswith(b"***@")]
if leftover:
    fail("redacted.txt still contains unredacted addresses, e.g. %r" % leftover[0])
if red.count(b"***@") != 118:
    fail("expected 118 redacted addresses, found %d" % red.count(b"***@"))
if hashlib.sha256(red).hexdigest() != "1897cc00974727cfbb19f97b540ed799cd2a064145182599421fe76df8440ddb":
    fail("redacted.txt differs from the expected redaction")

expected = ("corp.acme.io 17\nexample.com 36\nhelpdesk.net 17\n"
            "mail.example.org 18\nshop.co.uk 9\nuni-bonn.de 21\n")
if dom != expected:
    fail("domains.txt: expected %r, got %r" % (expected, dom))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
