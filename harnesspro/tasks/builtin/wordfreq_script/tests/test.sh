#!/bin/bash
# Verifier: runs /workspace/wordfreq.py on the sample and on inputs the instruction did not show.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import collections, os, random, re, subprocess, sys, tempfile

SCRIPT = "/workspace/wordfreq.py"

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def reference(text, n):
    counts = collections.Counter(w.lower() for w in re.findall(r"[A-Za-z]+", text))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    return "".join("%s\t%d\n" % kv for kv in ranked)

def run(*args):
    return subprocess.run(["python3", SCRIPT, *args], capture_output=True, timeout=20)

if not os.path.isfile(SCRIPT):
    fail("missing " + SCRIPT)

expected_sample = "the\t10\nlog\t4\nand\t3\nharbour\t3\nship\t3\n"
try:
    got = open("/workspace/sample_top5.txt").read()
except OSError as e:
    fail("cannot read /workspace/sample_top5.txt: %s" % e)
if got != expected_sample:
    fail("sample_top5.txt: expected %r, got %r" % (expected_sample, got))

tmp = tempfile.mkdtemp()
rng = random.Random(7)
vocab = ["alpha", "Beta", "GAMMA", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]
big = " ".join(rng.choice(vocab) + rng.choice(["", ",", ".", "!", " --", "'s", "42"]) for _ in range(3000))
cases = [
    ("mixed.txt", "Don't stop -- don't STOP! caf\u00e9 Caf\u00e9 42 x1y2z\n", ["3"]),
    ("mixed2.txt", "Don't stop -- don't STOP! caf\u00e9 Caf\u00e9 42 x1y2z\n", []),
    ("many.txt", big, ["7"]),
    ("many_default.txt", big, []),
    ("fewer.txt", "one two two three three three\n", ["50"]),
    ("empty.txt", "", ["4"]),
    ("digits.txt", "123 456 ... !!!\n", []),
]
for name, text, extra in cases:
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    n = int(extra[0]) if extra else 10
    p = run(path, *extra)
    if p.returncode != 0:
        fail("%s: exit status %d, stderr %r" % (name, p.returncode, p.stderr[-300:]))
    exp = reference(text, n)
    if p.stdout.decode() != exp:
        fail("%s (N=%d): expected %r, got %r" % (name, n, exp[:200], p.stdout.decode()[:200]))

missing = os.path.join(tmp, "no_such_file.txt")
p = run(missing, "3")
if p.returncode != 2:
    fail("missing file: expected exit status 2, got %d" % p.returncode)
if p.stdout != b"":
    fail("missing file: stdout must be empty, got %r" % p.stdout)
if p.stderr.decode().strip() != "error: cannot read " + missing:
    fail("missing file: unexpected stderr %r" % p.stderr)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
