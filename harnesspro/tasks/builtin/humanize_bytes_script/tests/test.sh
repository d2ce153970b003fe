#!/bin/bash
# Verifier: runs /workspace/humanize on hidden argument lists and checks stdout, stderr and exit status.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import os, subprocess, sys
from fractions import Fraction

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def human(n):
    if n < 1024:
        return "%d B" % n
    for name, size in (("TiB", 1024 ** 4), ("GiB", 1024 ** 3), ("MiB", 1024 ** 2), ("KiB", 1024)):
        if n >= size:
            v = Fraction(n, size) * 10 + Fraction(1, 2)
            t = v.numerator // v.denominator
            return "%d.%d %s" % (t // 10, t % 10, name)

def expect(args):
    out, err, status = "", "", 0
    for a in args:
        if a != "" and all(c in "0123456789" for c in a):
            out += human(int(a)) + "\n"
        else:
            err += "humanize: invalid size: %s\n" % a
            status = 1
    return out, err, status

SCRIPT = "/workspace/humanize"
if not os.path.isfile(SCRIPT) or not os.access(SCRIPT, os.X_OK):
    fail("/workspace/humanize is missing or not executable")
cases = [
    ["0"], ["1023"], ["1024"], ["1075"], ["1076"], ["1280"], ["1310720"], ["1048575", "1048576"],
    ["000123", "0001024"], ["3377699720527872"], ["1288490188", "1717986918", "5497558138880"],
    ["-5"], ["12a", "7"], ["1.5", "", "2048", "+4", " 9"], ["99999999999999999999"],
]
for args in cases:
    p = subprocess.run([SCRIPT] + args, capture_output=True, text=True, timeout=10, cwd="/tmp")
    want = expect(args)
    if (p.stdout, p.stderr, p.returncode) != want:
        fail("args %r: expected (stdout, stderr, status) %r, got %r" % (args, want, (p.stdout, p.stderr, p.returncode)))
p = subprocess.run([SCRIPT], capture_output=True, text=True, timeout=10, cwd="/tmp")
if (p.stdout, p.stderr, p.returncode) != ("", "usage: humanize SIZE...\n", 2):
    fail("no arguments: got %r" % ((p.stdout, p.stderr, p.returncode),))

sizes = open("/workspace/sizes.txt").read().split()
try:
    got = open("/workspace/sizes_human.txt").read()
except OSError as e:
    fail("cannot read /workspace/sizes_human.txt: %s" % e)
if len(sizes) != 11 or got != expect(sizes)[0]:
    fail("/workspace/sizes_human.txt: expected %r, got %r" % (expect(sizes)[0], got))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
