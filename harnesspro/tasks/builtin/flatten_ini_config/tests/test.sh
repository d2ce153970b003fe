#!/bin/bash
# Verifier: exact comparison of /workspace/flat.txt with the expected flattening.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
expected = """cache.backend=redis
cache.ttl=300
cache.url=redis://cache:6379/0
database.dsn=postgres://app:s3cret@db.internal:5432/orders?sslmode=require
database.options=-c search_path=app;public
database.pool_size=20
database.replica=postgres://ro@db-replica.internal:5432/orders
database.timeout=
feature_flags.beta-search=false
feature_flags.beta=true
feature_flags.beta_search=true
feature_flags.new_checkout=true
global.debug=false
global.name=orderbook
logging.file=/var/log/orderbook/app.log
logging.format=%(asctime)s %(levelname)s %(message)s
logging.level=WARNING
logging.rotate=daily
server.banner=Welcome = to = orderbook
server.host=0.0.0.0
server.keepalive=75
server.port=8080
server.workers=8
"""
try:
    got = open("/workspace/flat.txt").read()
except OSError as e:
    print("FAIL: cannot read /workspace/flat.txt:", e)
    sys.exit(1)
if got != expected:
    exp_lines, got_lines = expected.splitlines(), got.splitlines()
    print("FAIL: flat.txt differs from the expected output")
    print("missing:   ", sorted(set(exp_lines) - set(got_lines)))
    print("unexpected:", sorted(set(got_lines) - set(exp_lines)))
    if set(exp_lines) == set(got_lines):
        print("same lines but wrong order, duplicates or trailing newline")
    sys.exit(1)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
