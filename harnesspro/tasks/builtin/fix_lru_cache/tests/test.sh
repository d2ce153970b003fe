#!/bin/bash
# Verifier: replays hidden command sequences through the cache CLI and compares with a reference LRU model.
mkdir -p /logs/verifier
export PYTHONDONTWRITEBYTECODE=1
python3 -I - <<'PYEOF'
import random, subprocess, sys
from collections import OrderedDict

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def model(capacity, commands):
    cache, out = OrderedDict(), []
    hits = misses = evictions = 0
    for line in commands:
        p = line.split()
        if not p:
            continue
        if p[0] == "put":
            if p[1] not in cache and len(cache) >= capacity:
                old, _ = cache.popitem(last=False)
                evictions += 1
                out.append("evicted " + old)
            cache[p[1]] = p[2]
            cache.move_to_end(p[1])
        elif p[0] == "get":
            if p[1] in cache:
                hits += 1
                cache.move_to_end(p[1])
                out.append(cache[p[1]])
            else:
                misses += 1
                out.append("MISS")
        elif p[0] == "del":
            out.append("deleted" if cache.pop(p[1], None) is not None else "absent")
        else:
            out.append("size=%d hits=%d misses=%d evictions=%d" % (len(cache), hits, misses, evictions))
    return "".join(l + "\n" for l in out)

def run(capacity, commands):
    p = subprocess.run(["python3", "/workspace/kvcache/cli.py", str(capacity)], input="".join(c + "\n" for c in commands),
                       capture_output=True, text=True, timeout=20)
    return p.stdout, p.returncode, p.stderr

session = open("/workspace/kvcache/session.txt").read().splitlines()
try:
    saved = open("/workspace/session_out.txt").read()
except OSError as e:
    fail("cannot read /workspace/session_out.txt: %s" % e)
if len(session) != 15 or saved != model(3, session):
    fail("/workspace/session_out.txt: expected %r, got %r" % (model(3, session), saved))

r = random.Random(4242)
cases = [(1, ["put a 1", "put b 2", "get a", "get b", "put b 3", "get b", "stats"]),
         (2, ["put a 1", "put b 2", "put a 9", "put c 3", "get a", "get b", "stats"]),
         (2, ["put a 1", "put b 2", "del a", "put c 3", "put d 4", "put e 5", "stats"]),
         (3, ["get x", "del x", "", "put x 1", "del x", "del x", "get x", "stats"])]
for _ in range(30):
    cap = r.randint(1, 6)
    keys = ["k%d" % i for i in range(r.randint(2, 12))]
    cmds = []
    for _ in range(r.randint(20, 120)):
        op = r.choices(["put", "get", "del", "stats", ""], [5, 5, 2, 1, 0.3])[0]
        if op == "put":
            cmds.append("put %s v%d" % (r.choice(keys), r.randint(0, 99)))
        elif op in ("get", "del"):
            cmds.append("%s %s" % (op, r.choice(keys)))
        else:
            cmds.append(op)
    cmds.append("stats")
    cases.append((cap, cmds))
for cap, cmds in cases:
    want = model(cap, cmds)
    got, rc, err = run(cap, cmds)
    if rc != 0 or got != want:
        g, w = got.splitlines(), want.splitlines()
        i = next((i for i in range(max(len(g), len(w))) if i >= len(g) or i >= len(w) or g[i] != w[i]), 0)
        fail("capacity %d, commands %r: output line %d expected %r, got %r (exit %d, stderr %r)"
             % (cap, cmds, i + 1, w[i] if i < len(w) else None, g[i] if i < len(g) else None, rc, err[-200:]))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
