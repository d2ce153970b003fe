#!/bin/bash
# Verifier: rebuilds the expected CSV from the (unchanged) JSON input, byte for byte.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import hashlib, json, sys
from decimal import Decimal, ROUND_HALF_UP

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

try:
    raw = open("/workspace/inventory.json", "rb").read()
except OSError as e:
    fail("cannot read /workspace/inventory.json: %s" % e)
if hashlib.sha256(raw).hexdigest() != "2e328a7edaf3155b18516d29eebd1d63def6f855b4134f7487ac9ffe3b7488a9":
    fail("/workspace/inventory.json was modified")

def field(s):
    return '"%s"' % s.replace('"', '""') if ("," in s or '"' in s) else s

lines = ["sku,name,price,total_stock,tags"]
for it in sorted(json.loads(raw), key=lambda it: it["sku"].encode()):
    price = Decimal(str(it["price"])).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    stock = it["stock"]["warehouse"] + it["stock"].get("store", 0)
    tags = ";".join(it.get("tags", []))
    lines.append(",".join(field(x) for x in (it["sku"], it["name"], str(price), str(stock), tags)))
expected = "\n".join(lines) + "\n"
try:
    got = open("/workspace/inventory.csv", "rb").read().decode()
except (OSError, UnicodeDecodeError) as e:
    fail("cannot read /workspace/inventory.csv: %s" % e)
if got != expected:
    g, e = got.split("\n"), expected.split("\n")
    for i in range(max(len(g), len(e))):
        if i >= len(g) or i >= len(e) or g[i] != e[i]:
            fail("line %d: expected %r, got %r" % (i + 1, e[i] if i < len(e) else None, g[i] if i < len(g) else None))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
