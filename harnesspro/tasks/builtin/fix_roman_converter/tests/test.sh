#!/bin/bash
# Verifier: runs convert.py on hidden inputs and checks against an independent reference.
mkdir -p /logs/verifier
export PYTHONDONTWRITEBYTECODE=1
python3 -I - <<'PYEOF'
import re, subprocess, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

CANON = re.compile(r"M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})")
VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
PAIRS = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
         (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]

def ref(line):
    tok = line.strip()
    if re.fullmatch(r"[0-9]+", tok):
        n = int(tok)
        if not 1 <= n <= 3999:
            return "ERROR"
        out = ""
        for v, s in PAIRS:
            while n >= v:
                out += s
                n -= v
        return out
    up = tok.upper()
    if not up or not CANON.fullmatch(up):
        return "ERROR"
    total = 0
    for i, ch in enumerate(up):
        v = VALUES[ch]
        total += -v if i + 1 < len(up) and VALUES[up[i + 1]] > v else v
    return str(total)

lines = ["1994", "MCMXCIV", "mcmxciv", "  McMxCiV  ", "900", "CM", "cm", "3999", "MMMCMXCIX", "4000",
         "0", "007", "444", "cdxliv", "IIII", "VX", "IC", "IM", "XM", "MMMM", "XIIX", "IVI", "CMM",
         "", "   ", "abc", "1 2", "XLII", "\tdccclxxxviii\t", "DCCCLXXXVIII", "2900", "49", "xlix",
         "LXL", "MCMC", "CMXC", "1", "i", "3", "iii"]
stdin = "\n".join(lines) + "\n"
expected = "".join(ref(l) + "\n" for l in lines if l.strip())
p = subprocess.run(["python3", "/workspace/romanconv/convert.py"], input=stdin, capture_output=True,
                   text=True, timeout=20, cwd="/workspace")
if p.returncode != 0:
    fail("convert.py exited %d: %s" % (p.returncode, p.stderr[-500:]))
got = p.stdout.splitlines()
exp = expected.splitlines()
if len(got) != len(exp):
    fail("expected %d output lines, got %d" % (len(exp), len(got)))
inputs = [l for l in lines if l.strip()]
for i, (g, e) in enumerate(zip(got, exp)):
    if g != e:
        fail("input %r: expected %r, got %r" % (inputs[i], e, g))
if p.stdout != expected:
    fail("output formatting differs (line endings / trailing newline)")

p = subprocess.run(["python3", "/workspace/romanconv/tests/test_roman.py"], capture_output=True, text=True, timeout=30)
if p.returncode != 0:
    fail("tests/test_roman.py still fails:\n" + p.stderr[-800:])
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
