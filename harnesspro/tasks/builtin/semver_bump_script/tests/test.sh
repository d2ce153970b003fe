#!/bin/bash
# Verifier: checks the batch output and runs /workspace/bump on inputs the instruction did not show.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import os, subprocess, sys

BUMP = "/workspace/bump"

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

if not os.path.isfile(BUMP) or not os.access(BUMP, os.X_OK):
    fail(BUMP + " is missing or not executable")

expected_batch = ("1.4.3\nv2.1.0\n1.0.0\n3.1.0\n3.2.0\nv2.0.0\ninvalid\ninvalid\n"
                  "invalid\n0.0.10\n12.41.0\ninvalid\n")
try:
    got = open("/workspace/bumped.txt").read()
except OSError as e:
    fail("cannot read /workspace/bumped.txt: %s" % e)
if got != expected_batch:
    fail("bumped.txt: expected %r, got %r" % (expected_batch, got))

def run(args, stdin=b""):
    try:
        return subprocess.run([BUMP, *args], input=stdin, capture_output=True, timeout=10)
    except OSError as e:
        fail("cannot execute %s: %s" % (BUMP, e))

good = [
    (["1.2.3", "patch"], "1.2.4"),
    (["1.2.3", "minor"], "1.3.0"),
    (["1.2.3", "major"], "2.0.0"),
    (["v0.9.9", "minor"], "v0.10.0"),
    (["2.3.4-beta.1", "patch"], "2.3.4"),
    (["2.3.4-beta.1", "minor"], "2.4.0"),
    (["v10.0.0-rc-1", "major"], "v11.0.0"),
    (["0.0.0", "patch"], "0.0.1"),
    (["v99.199.299", "patch"], "v99.199.300"),
]
for args, exp in good:
    p = run(args)
    if p.returncode != 0 or p.stdout.decode() != exp + "\n":
        fail("bump %s: expected %r (exit 0), got %r (exit %d)" % (" ".join(args), exp, p.stdout, p.returncode))

bad = [["1.2", "patch"], ["1.2.3.4", "patch"], ["01.2.3", "major"], ["V1.2.3", "patch"],
       ["1.2.3", "build"], ["1.2.3", "Patch"], ["1.2.3"], ["1.2.3", "patch", "x"],
       ["1.2.3-", "patch"], ["1.2.3-alpha..1", "minor"], ["v", "major"], ["1.2.3+meta", "patch"]]
for args in bad:
    p = run(args)
    if p.returncode != 1 or p.stdout != b"" or p.stderr.decode().strip() != "invalid":
        fail("bump %s: expected exit 1, empty stdout and 'invalid' on stderr; got exit %d, stdout %r, stderr %r"
             % (" ".join(args), p.returncode, p.stdout, p.stderr))

stdin = b"0.1.0 minor\n\n  5.5.5-x   patch  \nnope major\n1.0.0\n\t\nv3.3.3 major"
p = run([], stdin)
exp = "0.2.0\n5.5.5\ninvalid\ninvalid\nv4.0.0\n"
if p.returncode != 0 or p.stdout.decode() != exp:
    fail("stdin mode: expected %r (exit 0), got %r (exit %d)" % (exp, p.stdout, p.returncode))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
