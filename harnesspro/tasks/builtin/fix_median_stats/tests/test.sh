#!/bin/bash
# Verifier: runs the statistics CLI on hidden inputs and compares with independently computed summaries.
mkdir -p /logs/verifier
export PYTHONDONTWRITEBYTECODE=1
python3 -I - <<'PYEOF'
import os, statistics, subprocess, sys, tempfile

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def expected(values):
    return "count: %d\nmean: %.2f\nmedian: %.2f\nmin: %.2f\nmax: %.2f\n" % (
        len(values), sum(values) / len(values), statistics.median(values), min(values), max(values))

try:
    sample = open("/workspace/sample_stats.txt").read()
except OSError as e:
    fail("cannot read /workspace/sample_stats.txt: %s" % e)
if sample != "count: 8\nmean: 7.44\nmedian: 7.50\nmin: -4.00\nmax: 19.00\n":
    fail("sample_stats.txt has unexpected content %r" % sample)

cases = [[4, 1], [10, 20, 30, 40], [5], [3, 1, 2], [-2.5, 7.25, 1, 1, 100, -50], [0.5] * 6,
         [9, 8, 7, 6, 5, 4, 3, 2, 1, 0], [1e6, -1e6, 3, 5], [2, 2, 3, 3, 3, 4]]
tmp = tempfile.mkdtemp()
for i, vals in enumerate(cases):
    path = os.path.join(tmp, "data%d.txt" % i)
    with open(path, "w") as f:
        f.write("".join("%r\n\n" % v if j % 3 == 1 else "%r\n" % v for j, v in enumerate(vals)))
    p = subprocess.run(["python3", "/workspace/numstats/cli.py", path], capture_output=True, text=True, timeout=20)
    exp = expected([float(v) for v in vals])
    if p.returncode != 0 or p.stdout != exp:
        fail("values %r: expected %r, got %r (exit %d, stderr %r)" % (vals, exp, p.stdout, p.returncode, p.stderr[-300:]))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
