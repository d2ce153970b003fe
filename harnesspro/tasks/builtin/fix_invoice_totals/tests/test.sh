#!/bin/bash
# Verifier: runs the invoice CLI on hidden invoices and compares with independently computed totals.
mkdir -p /logs/verifier
export PYTHONDONTWRITEBYTECODE=1
python3 -I - <<'PYEOF'
import os, subprocess, sys, tempfile
from decimal import ROUND_HALF_UP, Decimal

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def cents(x):
    return x.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)

def expected(rows, tax_pct):
    sub = sum((cents(Decimal(q) * Decimal(p) * (100 - Decimal(d or "0")) / 100) for q, p, d in rows), Decimal(0))
    sub = cents(sub)
    tax = cents(sub * Decimal(tax_pct) / 100)
    return "subtotal: %s\ntax: %s\ntotal: %s\n" % (sub, tax, sub + tax)

try:
    sample = open("/workspace/sample_total.txt").read()
except OSError as e:
    fail("cannot read /workspace/sample_total.txt: %s" % e)
if sample != "subtotal: 1314.03\ntax: 249.67\ntotal: 1563.70\n":
    fail("sample_total.txt has unexpected content %r" % sample)

cases = [
    ([("Single widget", "2", "5.00", "0")], None),
    ([("Half cent", "1", "0.125", ""), ("Another", "3", "0.335", "")], "10"),
    ([("Bulk", "250", "0.19", "12.5"), ("Setup fee", "1", "99.00", ""), ("Support", "6", "45.50", "20")], "7.5"),
    ([], "19"),
    ([("Only line with discount", "4", "19.99", "33")], None),
]
tmp = tempfile.mkdtemp()
for i, (rows, tax) in enumerate(cases):
    path = os.path.join(tmp, "inv%d.csv" % i)
    with open(path, "w") as f:
        f.write("description,qty,unit_price,discount_pct\n")
        for r in rows:
            f.write(",".join(r) + "\n")
    args = ["python3", "/workspace/invoice/cli.py", path] + ([tax] if tax else [])
    p = subprocess.run(args, capture_output=True, text=True, timeout=20, cwd="/workspace")
    exp = expected([r[1:] for r in rows], tax or "19")
    if p.returncode != 0 or p.stdout != exp:
        fail("invoice %d (tax %s): expected %r, got %r (exit %d, stderr %r)"
             % (i, tax or "default", exp, p.stdout, p.returncode, p.stderr[-300:]))

p = subprocess.run(["python3", "/workspace/invoice/tests/test_pricing.py"], capture_output=True, text=True, timeout=30)
if p.returncode != 0:
    fail("tests/test_pricing.py still fails:\n" + p.stderr[-800:])
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
