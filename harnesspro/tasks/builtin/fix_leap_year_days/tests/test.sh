#!/bin/bash
# Verifier: runs the day counter on hidden date pairs and compares with Python's datetime.
mkdir -p /logs/verifier
export PYTHONDONTWRITEBYTECODE=1
python3 -I - <<'PYEOF'
import datetime, random, subprocess, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def run(a, b):
    p = subprocess.run(["python3", "/workspace/daycount/cli.py", a, b], capture_output=True, text=True, timeout=20)
    return p.stdout, p.stderr, p.returncode

def valid(s):
    try:
        return len(s) == 10 and datetime.date.fromisoformat(s)
    except ValueError:
        return None

def expect(a, b):
    for s in (a, b):
        if not valid(s):
            return "", "error: invalid date %s\n" % s, 2
    da, db = valid(a), valid(b)
    return "days: %d\nweekday: %s\n" % ((db - da).days, db.strftime("%A")), "", 0

try:
    result = open("/workspace/result.txt").read()
except OSError as e:
    fail("cannot read /workspace/result.txt: %s" % e)
if result != "days: 8826\nweekday: Thursday\n":
    fail("/workspace/result.txt has unexpected content %r" % result)

pairs = [("2024-02-01", "2024-03-01"), ("1900-02-28", "1900-03-01"), ("2000-02-28", "2000-03-01"),
         ("1600-02-29", "2400-02-29"), ("0001-01-01", "9999-12-31"), ("2100-03-01", "2100-02-01"),
         ("2023-12-31", "2023-01-01"), ("1970-01-01", "2038-01-19"), ("2024-02-29", "2028-02-29"),
         ("1900-02-29", "2000-01-01"), ("2000-01-01", "2023-02-29"), ("2023-04-31", "2023-05-01"),
         ("2023-13-01", "2023-01-01"), ("0000-01-01", "2000-01-01"), ("2024-00-10", "2024-01-10")]
r = random.Random(1582)
for _ in range(40):
    a = datetime.date.fromordinal(r.randint(1, 3652059))
    b = datetime.date.fromordinal(r.randint(1, 3652059))
    pairs.append((a.isoformat(), b.isoformat()))
for y in (1700, 1800, 1896, 1904, 2096, 2104, 2400, 2800, 4000):
    pairs.append(("%04d-01-15" % y, "%04d-12-15" % y))
for a, b in pairs:
    got, want = run(a, b), expect(a, b)
    if got != want:
        fail("cli.py %s %s: expected (stdout, stderr, status) %r, got %r" % (a, b, want, got))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
