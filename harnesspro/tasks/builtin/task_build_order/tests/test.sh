#!/bin/bash
# Verifier: exact comparison of both build orders (smallest-ready-first topological sort).
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

ORDER = ["api", "app", "auth", "cache", "grpc", "json", "log", "migrate", "net", "orm", "queue", "img",
         "report", "pdf", "fmt", "rpc", "bench", "index", "mail", "schema", "crypto", "cli", "metrics",
         "search", "billing", "sync", "admin", "config", "core", "db", "docs", "proto", "trace", "tests",
         "ui", "utils", "deploy", "web", "export", "bundle", "lint", "worker", "i18n", "yaml"]
PLUGINS = ["crypto", "docs", "fonts", "icons", "palette", "pdf", "theme", "widgets", "ui",
           "CYCLE: api app auth cache reports session session-store store"]

for path, lines in (("/workspace/order.txt", ORDER), ("/workspace/plugins_order.txt", PLUGINS)):
    expected = "".join(l + "\n" for l in lines)
    try:
        got = open(path).read()
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))
    if got != expected:
        got_l = got.splitlines()
        for i, want in enumerate(lines):
            if i >= len(got_l) or got_l[i] != want:
                fail("%s: line %d should be %r, got %r" % (path, i + 1, want, got_l[i] if i < len(got_l) else None))
        fail("%s: extra lines or missing final newline" % path)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
