#!/bin/bash
# Verifier: structural comparison of the JSON report and exact comparison of the orphan list.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import json, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

EXPECTED = [
    {"user_id": 253, "name": "Chen Wei", "country": "BR", "order_count": 15, "total_cents": 199239},
    {"user_id": 333, "name": "Quinn Foster", "country": "NG", "order_count": 15, "total_cents": 178702},
    {"user_id": 231, "name": "Brian Kern", "country": "US", "order_count": 16, "total_cents": 178065},
    {"user_id": 273, "name": "Emeka Obi", "country": "BR", "order_count": 11, "total_cents": 174140},
    {"user_id": 373, "name": "Hiro Sato", "country": "NG", "order_count": 11, "total_cents": 159641},
    {"user_id": 110, "name": "Tara Walsh", "country": "DE", "order_count": 12, "total_cents": 158712},
    {"user_id": 173, "name": "Viktor Hale", "country": "BR", "order_count": 12, "total_cents": 153669},
    {"user_id": 209, "name": "Wen Li", "country": "FR", "order_count": 12, "total_cents": 135530},
    {"user_id": 369, "name": "Yusuf Kaya", "country": "US", "order_count": 9, "total_cents": 121394},
    {"user_id": 374, "name": "Mateo Cruz", "country": "IN", "order_count": 8, "total_cents": 117994},
    {"user_id": 176, "name": "Ada Byron", "country": "DE", "order_count": 11, "total_cents": 114200},
    {"user_id": 251, "name": "Uma Patel", "country": "IN", "order_count": 8, "total_cents": 98850},
    {"user_id": 227, "name": "Rosa Marin", "country": "IN", "order_count": 8, "total_cents": 97745},
    {"user_id": 308, "name": "Kavya Rao", "country": "US", "order_count": 6, "total_cents": 91693},
    {"user_id": 250, "name": "Goran Ivic", "country": "IN", "order_count": 7, "total_cents": 78414},
    {"user_id": 270, "name": "Omar Haddad", "country": "DE", "order_count": 8, "total_cents": 74439},
    {"user_id": 279, "name": "Ines Duarte", "country": "FR", "order_count": 7, "total_cents": 73494},
    {"user_id": 382, "name": "Priya Nair", "country": "NG", "order_count": 6, "total_cents": 71825},
    {"user_id": 238, "name": "Zoe Martin", "country": "FR", "order_count": 7, "total_cents": 56701},
    {"user_id": 162, "name": "Sven Dahl", "country": "US", "order_count": 6, "total_cents": 36053}
]
EXPECTED_ORPHANS = "70126\n70183\n70264\n70357\n70609\n70651\n70720\n70729\n"

try:
    report = json.load(open("/workspace/customer_report.json"))
except (OSError, ValueError) as e:
    fail("cannot load /workspace/customer_report.json: %s" % e)
if not isinstance(report, list):
    fail("report must be a JSON array")
if len(report) != len(EXPECTED):
    fail("expected %d entries, got %d" % (len(EXPECTED), len(report)))
for i, (got, exp) in enumerate(zip(report, EXPECTED)):
    if not isinstance(got, dict) or set(got) != set(exp):
        fail("entry %d: keys must be exactly %s, got %r" % (i, sorted(exp), got))
    for key in ("user_id", "order_count", "total_cents"):
        if type(got[key]) is not int:
            fail("entry %d: %s must be an integer" % (i, key))
    if got != exp:
        fail("entry %d: expected %r, got %r" % (i, exp, got))

try:
    orphans = open("/workspace/orphan_orders.txt").read()
except OSError as e:
    fail("cannot read /workspace/orphan_orders.txt: %s" % e)
if orphans != EXPECTED_ORPHANS:
    fail("orphan_orders.txt: expected %r, got %r" % (EXPECTED_ORPHANS, orphans))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
